#include "guard/envconf.h"

#include <ctype.h>
#include <string.h>

#include "common/util.h"

/* What a desktop session runs from the data folder: desktop entries
 * (their Exec= runs when opened, or at login from autostart), the user's
 * systemd units and D-Bus services (started on demand). The rest of the
 * data folder is programs' data. */
static const char *const data_parts[] = {
    "applications",
    "autostart",
    "systemd",
    "dbus-1",
    "bash-completion",
    "thumbnailers",
    /* Neovim's site folder and fish's vendor folders: run at a start,
     * a command or a tab */
    "nvim/site",
    "fish/vendor_conf.d",
    "fish/vendor_functions.d",
    "fish/vendor_completions.d",
    /* file managers' menus of programs, the desktop's extensions */
    "nautilus/scripts",
    "kio/servicemenus",
    "kservices5/ServiceMenus",
    "gnome-shell/extensions",
    NULL,
};

/* What zsh reads from ZDOTDIR in place of the home folder (the compiled
 * completion dump is sourced too). */
static const char *const zsh_parts[] = {
    ".zshenv",	  ".zprofile",	 ".zshrc",     ".zlogin", ".zlogout",
    ".zcompdump", ".zshenv.zwc", ".zshrc.zwc", NULL,
};

static const struct env_conf confs[] = {
    {"XDG_CONFIG_HOME", ENV_WHOLE, NULL,
     "XDG_CONFIG_HOME names it: programs, the session and systemd read "
     "their configuration (and autostart) there"},
    {"XDG_DATA_HOME", ENV_PARTS, data_parts,
     "it lies in XDG_DATA_HOME: the session runs the desktop entries, "
     "units and services it holds"},
    /* searched after the user's own folders, for what is not found
     * there: an autostart entry, a unit, a desktop entry, a D-Bus
     * service the session starts on demand */
    {"XDG_CONFIG_DIRS", ENV_LIST, NULL,
     "it is in XDG_CONFIG_DIRS: programs, the session and systemd read "
     "configuration (and autostart) there"},
    {"XDG_DATA_DIRS", ENV_PARTS_LIST, data_parts,
     "it lies in a folder of XDG_DATA_DIRS: the session runs the desktop "
     "entries, units and services it holds"},
    {"XDG_CACHE_HOME", ENV_WHOLE, NULL,
     "XDG_CACHE_HOME names it: pre-commit and others run what they keep "
     "there"},
    {"GIT_CONFIG_GLOBAL", ENV_GITCONFIG, NULL,
     "GIT_CONFIG_GLOBAL names it: git runs what it sets"},
    {"GIT_CONFIG_SYSTEM", ENV_GITCONFIG, NULL,
     "GIT_CONFIG_SYSTEM names it: git runs what it sets"},
    {"ZDOTDIR", ENV_PARTS, zsh_parts, "it lies in ZDOTDIR: zsh runs it"},
    {"BASH_ENV", ENV_WHOLE, NULL,
     "BASH_ENV names it: every bash script sources it"},
    {"ENV", ENV_WHOLE, NULL, "ENV names it: sh sources it"},
    {"INPUTRC", ENV_WHOLE, NULL,
     "INPUTRC names it: readline binds keys to commands with it"},
    {"PYTHONSTARTUP", ENV_WHOLE, NULL,
     "PYTHONSTARTUP names it: python runs it"},
    {"PYTHONUSERBASE", ENV_WHOLE, NULL,
     "PYTHONUSERBASE names it: python imports from it (and runs its "
     ".pth files) at every start"},
    {"NODE_PATH", ENV_LIST, NULL,
     "NODE_PATH names it: node loads modules from it"},
    {"npm_config_userconfig", ENV_WHOLE, NULL,
     "npm_config_userconfig names it: npm reads scripts and registries "
     "from it"},
    {"NPM_CONFIG_USERCONFIG", ENV_WHOLE, NULL,
     "NPM_CONFIG_USERCONFIG names it: npm reads scripts and registries "
     "from it"},
    {"npm_config_prefix", ENV_WHOLE, NULL,
     "npm_config_prefix names it: npm installs global programs there"},
    {"IRBRC", ENV_WHOLE, NULL, "IRBRC names it: irb runs it"},
    {"PSQLRC", ENV_WHOLE, NULL, "PSQLRC names it: psql runs it"},
    {"R_PROFILE_USER", ENV_WHOLE, NULL, "R_PROFILE_USER names it: R runs it"},
    {"R_ENVIRON_USER", ENV_WHOLE, NULL, "R_ENVIRON_USER names it: R loads it"},
    {"IPYTHONDIR", ENV_WHOLE, NULL,
     "IPYTHONDIR names it: IPython runs its startup files"},
    {"JUPYTER_CONFIG_DIR", ENV_WHOLE, NULL,
     "JUPYTER_CONFIG_DIR names it: Jupyter runs its configuration"},
    {"CARGO_HOME", ENV_WHOLE, NULL,
     "CARGO_HOME names it: cargo runs its programs and config"},
    {"RUSTUP_HOME", ENV_WHOLE, NULL,
     "RUSTUP_HOME names it: rustup runs its toolchains"},
    {"GNUPGHOME", ENV_WHOLE, NULL,
     "GNUPGHOME names it: gpg reads keys and config from it"},
    {"DOCKER_CONFIG", ENV_WHOLE, NULL,
     "DOCKER_CONFIG names it: docker runs the credential helpers it "
     "names"},
    {"KUBECONFIG", ENV_LIST, NULL,
     "KUBECONFIG names it: kubectl runs the exec plugins it names"},
    {"AWS_CONFIG_FILE", ENV_WHOLE, NULL,
     "AWS_CONFIG_FILE names it: the AWS tools run its credential_process"},
    {"AWS_SHARED_CREDENTIALS_FILE", ENV_WHOLE, NULL,
     "AWS_SHARED_CREDENTIALS_FILE names it: the AWS tools run its "
     "credential_process"},
    {"GRADLE_USER_HOME", ENV_WHOLE, NULL,
     "GRADLE_USER_HOME names it: gradle runs its init scripts"},
    {"PIP_CONFIG_FILE", ENV_WHOLE, NULL,
     "PIP_CONFIG_FILE names it: pip installs from the index it names"},
    {"GEM_HOME", ENV_WHOLE, NULL,
     "GEM_HOME names it: ruby loads the gems it holds"},
    {"BASH_COMPLETION_USER_DIR", ENV_LIST, NULL,
     "BASH_COMPLETION_USER_DIR names it: bash-completion sources the "
     "completions it holds"},
    {"PYTHONHOME", ENV_WHOLE, NULL,
     "PYTHONHOME names it: python runs its standard library from it"},
    {"PYTHONPYCACHEPREFIX", ENV_WHOLE, NULL,
     "PYTHONPYCACHEPREFIX names it: python runs the compiled modules it "
     "keeps there"},
    {"VIMRUNTIME", ENV_WHOLE, NULL,
     "VIMRUNTIME names it: vim runs its plugins from it"},
    {"STARSHIP_CONFIG", ENV_WHOLE, NULL,
     "STARSHIP_CONFIG names it: starship runs the commands it sets at "
     "every prompt"},
    {"MISE_CONFIG_DIR", ENV_WHOLE, NULL,
     "MISE_CONFIG_DIR names it: mise runs the tasks and hooks it sets"},
    {"HGRCPATH", ENV_LIST, NULL,
     "HGRCPATH names it: Mercurial runs the hooks it sets"},
    {"SCREENRC", ENV_WHOLE, NULL,
     "SCREENRC names it: screen runs the commands it holds"},
    {"CONDARC", ENV_WHOLE, NULL,
     "CONDARC names it: conda installs from the channels it names"},
    {"JAVA_HOME", ENV_WHOLE, NULL,
     "JAVA_HOME names it: gradle, maven and others run its java"},
    {"GEM_PATH", ENV_LIST, NULL,
     "GEM_PATH names it: ruby loads the gems it holds"},
    {"EMACSLOADPATH", ENV_LIST, NULL,
     "EMACSLOADPATH names it: emacs loads its libraries from it"},
    {"CC", ENV_COMMAND, NULL, "CC names it: make and builds run it"},
    {"CXX", ENV_COMMAND, NULL, "CXX names it: make and builds run it"},
    {"SHELL", ENV_COMMAND, NULL,
     "SHELL names it: terminals, tmux and editors run it as your shell"},
    {"FZF_DEFAULT_COMMAND", ENV_COMMAND, NULL,
     "FZF_DEFAULT_COMMAND names it: fzf runs it"},
    /* "@FILE": lua runs FILE at every start (else the value is code) */
    {"LUA_INIT", ENV_WHOLE, NULL, "LUA_INIT names it: lua runs it"},
    /* The loader reads these when any program starts, lnk itself too:
     * a library the program leaves (or rewrites) there runs in every
     * program the user starts, as the user. */
    {"LD_PRELOAD", ENV_LOADER, NULL,
     "LD_PRELOAD names it: every program you start loads it"},
    {"LD_LIBRARY_PATH", ENV_LOADER, NULL,
     "LD_LIBRARY_PATH names it: every program you start loads its "
     "libraries from it first"},
    {"LD_AUDIT", ENV_LOADER, NULL,
     "LD_AUDIT names it: every program you start loads it"},
    {"EDITOR", ENV_COMMAND, NULL, "EDITOR names it: programs run it"},
    {"VISUAL", ENV_COMMAND, NULL, "VISUAL names it: programs run it"},
    {"PAGER", ENV_COMMAND, NULL, "PAGER names it: programs run it"},
    {"GIT_EDITOR", ENV_COMMAND, NULL, "GIT_EDITOR names it: git runs it"},
    {"GIT_PAGER", ENV_COMMAND, NULL, "GIT_PAGER names it: git runs it"},
    {"GIT_SSH", ENV_COMMAND, NULL, "GIT_SSH names it: git runs it"},
    {"GIT_SSH_COMMAND", ENV_COMMAND, NULL,
     "GIT_SSH_COMMAND names it: git runs it"},
    {"GIT_ASKPASS", ENV_COMMAND, NULL, "GIT_ASKPASS names it: git runs it"},
    {"GIT_EXTERNAL_DIFF", ENV_COMMAND, NULL,
     "GIT_EXTERNAL_DIFF names it: git runs it for every diff"},
    {"GIT_SEQUENCE_EDITOR", ENV_COMMAND, NULL,
     "GIT_SEQUENCE_EDITOR names it: git rebase runs it"},
    {"GIT_TEMPLATE_DIR", ENV_WHOLE, NULL,
     "GIT_TEMPLATE_DIR names it: git copies its hooks into every "
     "repository it makes or clones"},
    {"GIT_EXEC_PATH", ENV_WHOLE, NULL,
     "GIT_EXEC_PATH names it: git runs its commands from it"},
    {"SSH_ASKPASS", ENV_COMMAND, NULL, "SSH_ASKPASS names it: ssh runs it"},
    {"SUDO_ASKPASS", ENV_COMMAND, NULL,
     "SUDO_ASKPASS names it: sudo -A runs it and gives it your password"},
    {"MANPAGER", ENV_COMMAND, NULL, "MANPAGER names it: man runs it"},
    {"BROWSER", ENV_COMMAND, NULL,
     "BROWSER names it: programs run it to open a link"},
    {"LESSOPEN", ENV_COMMAND, NULL,
     "LESSOPEN names it: less runs it on every file it shows"},
    /* Options every start of a runtime reads: a module or agent they
     * name loads in every program of that runtime the user starts. */
    {"NODE_OPTIONS", ENV_COMMAND, NULL,
     "NODE_OPTIONS names it: node loads it at every start (--require, "
     "--import)"},
    {"PERL5OPT", ENV_COMMAND, NULL,
     "PERL5OPT names it: perl loads it at every start"},
    {"RUBYOPT", ENV_COMMAND, NULL,
     "RUBYOPT names it: ruby loads it at every start"},
    {"JAVA_TOOL_OPTIONS", ENV_COMMAND, NULL,
     "JAVA_TOOL_OPTIONS names it: every JVM loads it (-javaagent)"},
    {"JDK_JAVA_OPTIONS", ENV_COMMAND, NULL,
     "JDK_JAVA_OPTIONS names it: java loads it (-javaagent)"},
    {"_JAVA_OPTIONS", ENV_COMMAND, NULL,
     "_JAVA_OPTIONS names it: every JVM loads it (-javaagent)"},
    {"VIMINIT", ENV_COMMAND, NULL,
     "VIMINIT names it: vim runs it in place of its vimrc"},
    {"EXINIT", ENV_COMMAND, NULL,
     "EXINIT names it: vi runs it in place of its exrc"},
    {"LESSKEYIN", ENV_WHOLE, NULL,
     "LESSKEYIN names it: less reads its keys and LESSOPEN from it"},
    {"LESSKEY", ENV_WHOLE, NULL,
     "LESSKEY names it: less reads its keys from it"},
    {"RUSTC_WRAPPER", ENV_COMMAND, NULL,
     "RUSTC_WRAPPER names it: cargo runs it for every compile"},
    {"RUSTC", ENV_COMMAND, NULL, "RUSTC names it: cargo runs it"},
    {"GOENV", ENV_WHOLE, NULL,
     "GOENV names it: go reads its settings (GOFLAGS, -toolexec) from it"},
    {"GOFLAGS", ENV_COMMAND, NULL, "GOFLAGS names it: go runs it (-toolexec)"},
    {"BASH_COMPLETION_USER_FILE", ENV_WHOLE, NULL,
     "BASH_COMPLETION_USER_FILE names it: bash sources it in every "
     "interactive shell"},
    {"PROMPT_COMMAND", ENV_COMMAND, NULL,
     "PROMPT_COMMAND names it: bash runs it at every prompt"},
};

const struct env_conf *env_confs(size_t *n)
{
	*n = ARRAY_SIZE(confs);
	return confs;
}

const struct env_conf *env_conf_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(confs); i++)
		if (strcmp(confs[i].name, name) == 0)
			return &confs[i];
	return NULL;
}

/* One of the loader's dynamic string tokens at *p ($NAME or ${NAME}):
 * its length, or 0. */
static size_t token_at(const char *p, const char *name)
{
	size_t n = strlen(name);
	if (p[0] != '$')
		return 0;
	if (strncmp(p + 1, name, n) == 0 && !isalnum((unsigned char)p[1 + n]) &&
	    p[1 + n] != '_')
		return 1 + n;
	if (p[1] == '{' && strncmp(p + 2, name, n) == 0 && p[2 + n] == '}')
		return 3 + n;
	return 0;
}

void env_loader_paths(const char *entry, struct strv *out)
{
	/* what glibc's $LIB and $PLATFORM become on the machines lnk runs
	 * on: Debian's and others' library folders, the CPU's names */
	static const char *const libs[] = {"lib",
					   "lib64",
					   "lib32",
					   "libx32",
					   "lib/x86_64-linux-gnu",
					   "lib/i386-linux-gnu",
					   "lib/aarch64-linux-gnu",
					   "lib/arm-linux-gnueabihf",
					   NULL};
	static const char *const platforms[] = {
	    "x86_64",	"i686",	   "i386", "haswell",
	    "xeon_phi", "aarch64", "v7l",  NULL};

	for (const char *p = entry; *p; p++) {
		size_t n;
		const char *const *each = (n = token_at(p, "LIB")) ? libs
					  : (n = token_at(p, "PLATFORM"))
					      ? platforms
					      : NULL;
		if (!each)
			continue;
		for (size_t i = 0; each[i]; i++) {
			_cleanup_free_ char *one =
			    xasprintf("%.*s%s%s", (int)(p - entry), entry,
				      each[i], p + n);
			env_loader_paths(one, out);
		}
		return;
	}
	if (!strv_contains(out, entry))
		strv_push(out, entry);
}
