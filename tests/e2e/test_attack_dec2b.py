"""Attacks of the session dec2b: each test is one hole found by attacking
lnk from inside a sandbox, from a spec, or from the network, and fails on
the code before its fix."""
import pytest

from attack_helpers import in_private_mounts, lnk_under_mounts

# The write folder also shown at a second path; PATH names a folder by that
# second path. A folder of PATH spelled by the bind of the write folder.
PATH_BY_SECOND = """
    mount --bind '{work}' '{second}' || exit 99
    PATH='{second}/venv/bin:/usr/bin:/bin' {lnk} sandbox run --write '{work}' \
        -- /bin/sh -c 'mkdir -p venv/bin; echo evil > venv/bin/ls; true' \
        || exit 3
    exit 0
"""

# A folder of PATH outside every grant, shown inside a write folder by a
# bind mount there.
PATH_SHOWN_INSIDE = """
    mount --bind '{tools}' '{work}/mnt' || exit 99
    PATH='{tools}/bin:/usr/bin:/bin' {lnk} sandbox run --write '{work}' \
        -- /bin/sh -c 'mkdir -p mnt/bin; echo evil > mnt/bin/ls; true' \
        || exit 3
    exit 0
"""

# The environment names git's global config by the second path.
GITCONFIG_BY_SECOND = """
    mount --bind '{work}' '{second}' || exit 99
    GIT_CONFIG_GLOBAL='{second}/gitconfig' {lnk} sandbox run \
        --write '{work}' -- /bin/sh -c \
        'printf "[core]\\n\\tpager = sh -c evil\\n" > gitconfig; true' \
        || exit 3
    exit 0
"""


def test_path_folder_at_a_second_path_of_a_write_folder_not_planted(
        lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a folder of the
    user's PATH inside a write folder is kept, judged by what it is, not
    its spelling.

    Threat: the write folder is also shown at a second path (a bind
    mount) and PATH names a folder by that path: the rule compared
    spellings, so the program made venv/bin/ls, which the user's shell
    runs at the next `ls`."""
    second = tmp_path / "second"
    second.mkdir()
    cp = in_private_mounts(lnk, PATH_BY_SECOND.format(
        work=work, second=second, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert cp.returncode == 0, (cp.returncode, cp.stderr)
    assert not (work / "venv" / "bin" / "ls").exists(), cp.stderr


def test_path_folder_shown_inside_a_write_folder_not_planted(
        lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a folder of the
    user's PATH that a write folder shows is kept.

    Threat: a folder outside every grant is bound inside the write folder
    (a container's bind, a second mount) and it holds a folder of PATH:
    the program writes bin/ls there through the bind."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (work / "mnt").mkdir()
    cp = in_private_mounts(lnk, PATH_SHOWN_INSIDE.format(
        work=work, tools=tools, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert cp.returncode == 0, (cp.returncode, cp.stderr)
    assert not (tools / "bin" / "ls").exists(), cp.stderr


def test_git_config_named_at_a_second_path_not_planted(lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: the configuration
    the environment names inside a write folder is kept, judged by what
    it is.

    Threat: GIT_CONFIG_GLOBAL names a file by a second path of the write
    folder (a bind mount): the program wrote a core.pager there, which the
    user's next `git log` runs."""
    second = tmp_path / "second"
    second.mkdir()
    cp = in_private_mounts(lnk, GITCONFIG_BY_SECOND.format(
        work=work, second=second, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert cp.returncode == 0, (cp.returncode, cp.stderr)
    assert not (work / "gitconfig").exists(), cp.stderr
