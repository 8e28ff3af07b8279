"""Model routes (man lnk-sandbox, GRANTS, --model): the program reaches a
hosted model through the wire on loopback, the wire adds the key from
outside over TLS, and counts the tokens each answer says it used.

The provider is fake_provider.py in the test network (origin.lnk-test,
port 8443, the test CA's certificate, given to lnk by SSL_CERT_FILE), with
known usage: Anthropic 11 in / 7 out, OpenAI 13 in / 5 out. The built-in
routes are pointed at it only by the test build's LNK_TEST_MODEL_ORIGIN
(LNK_BIN_HOOKS); the custom route needs no hook. Run as the user and as
root; the provider is started by fake_provider.sh (as root: run-all does,
and so does this file when it runs as root).
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from conftest import IS_ROOT, Lnk

HERE = pathlib.Path(__file__).resolve().parent
ENV_FILE = pathlib.Path("/run/lnk-nethosts.env")
FAKE_DIR = pathlib.Path("/run/lnk-fakemodel")
REQUESTS = FAKE_DIR / "requests.jsonl"
ORIGIN = "https://origin.lnk-test:8443"
CUSTOM = f"fake={ORIGIN}/v1"
A_IN, A_OUT = 11, 7
O_IN, O_OUT = 13, 5


def provider_up():
    pid = FAKE_DIR / "pid"
    try:
        os.kill(int(pid.read_text()), 0)
        return True
    except PermissionError:
        return True  # root's, alive
    except (OSError, ValueError):
        return False


@pytest.fixture
def net():
    if not ENV_FILE.exists():
        pytest.skip("no test hosts: run tests/e2e/nethosts.sh up as root")
    f = dict(line.partition("=")[::2] for line in ENV_FILE.read_text().split())
    if not provider_up():
        if not IS_ROOT:
            pytest.skip("the fake provider is not up: run "
                        "tests/e2e/fake_provider.sh up as root")
        subprocess.run(["sh", str(HERE / "fake_provider.sh"), "up"],
                       check=True)
    return f


def secret():
    return "sk-test-" + uuid.uuid4().hex


def base_env(f, **extra):
    env = {"LNK_DNS_SERVER": f["LNK_DNS_SERVER"],
           "SSL_CERT_FILE": f["CA_FILE"]}
    env.update(extra)
    return env


def hooks_lnk(lnk):
    h = os.environ.get("LNK_BIN_HOOKS")
    if not h:
        pytest.skip("LNK_BIN_HOOKS is not set: the built-in routes are "
                    "pointed at the fake provider only by a test build")
    l2 = Lnk(lnk.home, lnk.cwd)
    l2.bin = h
    return l2


def received(marker):
    """The requests the provider got whose body holds marker."""
    out = []
    for line in REQUESTS.read_text().splitlines():
        e = json.loads(line)
        if marker in e["body"]:
            out.append(e)
    return out


def log_rows(lnk, name):
    cp = lnk("sandbox", "log", "--json", "--sandbox", name, check=True)
    return [json.loads(l) for l in cp.stdout.splitlines()]


def model_rows(lnk, name):
    return [r for r in log_rows(lnk, name) if r["verb"] == "model"]


def curl_post(url_var, path, body, extra=""):
    """A shell line: POST body to $url_var/path, print the answer."""
    return (f"curl -sS --max-time 20 {extra} -H 'content-type: "
            f"application/json' \"${url_var}{path}\" -d '{json.dumps(body)}'")


def run_sh(lnk, name, script, env, *grants, timeout=90):
    return lnk.run("--name", name, *grants, "--", "sh", "-c", script,
                   env=env, timeout=timeout)


# ---- the custom (OpenAI-compatible) route: JSON, streams, the key ----


def test_custom_route_json_and_stream_counted(lnk, net):
    key, mark = secret(), uuid.uuid4().hex
    script = ";".join([
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-json", "mark": mark}),
        "echo",
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-stream", "stream": True, "mark": mark}),
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-bytewise", "stream": True, "mark": mark}),
    ])
    cp = run_sh(lnk, "mjson", script, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.count("hello from fake") == 1
    assert cp.stdout.count("from fake") == 3
    assert "[DONE]" in cp.stdout
    got = received(mark)
    assert len(got) == 3
    for e in got:
        assert e["path"] == "/v1/chat/completions"
        assert e["headers"]["authorization"] == [f"Bearer {key}"]
        assert e["headers"]["host"] == ["origin.lnk-test:8443"]
    # the stream asked for its usage, the JSON call was left alone
    assert '"include_usage":true' in got[1]["body"]
    assert "include_usage" not in got[0]["body"]
    rows = model_rows(lnk, "mjson")
    assert [r["target"] for r in rows] == [
        "fake/m-json POST /v1/chat/completions",
        "fake/m-stream POST /v1/chat/completions",
        "fake/m-bytewise POST /v1/chat/completions"]
    for r in rows:
        assert r["outcome"] == "ended" and r["status"] == 200, r
        assert (r["tokens_in"], r["tokens_out"]) == (O_IN, O_OUT), r
        assert r["up"] > 0 and r["down"] > 0
    # the log never holds the key or the prompt
    db = (lnk.home / ".lnk" / "sandbox" / "lnk.db").read_bytes()
    assert key.encode() not in db and mark.encode() not in db


def test_the_model_that_answered_is_logged(lnk, net):
    """The log says which model served a call when the answer names
    another than the request did (a gateway's fallback to a smaller
    model): the request's name alone would misstate what ran. A name
    that is not printable ASCII without spaces is not written."""
    key, mark = secret(), uuid.uuid4().hex
    script = ";".join([
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": m, "mark": mark})
        for m in ("m-fallback", "m-fallbackesc", "m-json")])
    cp = run_sh(lnk, "mserved", script, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM)
    assert cp.returncode == 0, cp.stderr
    rows = model_rows(lnk, "mserved")
    assert [(r["target"], r["outcome"], r["reason"]) for r in rows] == [
        ("fake/m-fallback POST /v1/chat/completions", "ended",
         "the provider served small-fallback-2024"),
        ("fake/m-fallbackesc POST /v1/chat/completions", "ended", ""),
        ("fake/m-json POST /v1/chat/completions", "ended", "")], rows
    text = lnk("sandbox", "log", "--sandbox", "mserved", check=True).stdout
    assert "the provider served small-fallback-2024" in text, text
    assert "\x1b" not in text


def test_stream_options_only_for_completions(lnk, net):
    """stream_options goes only to a completions endpoint, added into the
    object the program sent (its own stream_options kept, an
    include_usage it set left as it is)."""
    key, mark = secret(), uuid.uuid4().hex
    script = ";".join([
        curl_post("LNK_MODEL_FAKE_URL", "/responses",
                  {"model": "m-stream", "stream": True, "mark": mark},
                  "-o /dev/null"),
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-stream", "stream": True, "mark": mark,
                   "stream_options": {}}, "-o /dev/null"),
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-stream", "stream": True, "mark": mark,
                   "stream_options": {"include_usage": False}},
                  "-o /dev/null"),
    ])
    cp = run_sh(lnk, "mopts", script, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM)
    assert cp.returncode == 0, cp.stderr
    got = received(mark)
    assert [json.loads(e["body"]).get("stream_options") for e in got] == [
        None, {"include_usage": True}, {"include_usage": False}]
    rows = model_rows(lnk, "mopts")
    assert [(r["tokens_in"], r["tokens_out"]) for r in rows] == [
        (None, None), (O_IN, O_OUT), (None, None)]


def test_program_credentials_dropped_and_key_never_inside(lnk, net):
    """The key from a 0600 key file: absent from the sandbox's
    environment, files and /proc; present at the provider; the program's
    own Authorization and x-api-key never reach the provider."""
    key, mark = secret(), uuid.uuid4().hex
    kdir = lnk.home / ".lnk" / "sandbox"
    kdir.mkdir(parents=True, exist_ok=True)
    kf = kdir / "fake.key"
    kf.write_text(key + "\n")
    kf.chmod(0o600)
    script = ";".join([
        "env > env.txt",
        "cat /proc/*/environ /proc/*/cmdline > proc.txt 2>/dev/null",
        "cat ~/.lnk/sandbox/fake.key > keyfile.txt 2>&1",
        "grep -rsl -- '" + key[:12] + "' ~ /tmp /run /etc > grep.txt",
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-json", "mark": mark},
                  "-H 'Authorization: Bearer stolen' -H 'x-api-key: stolen'"
                  " -H 'api-key: stolen' -H 'Cookie: c=1'"),
    ])
    cp = run_sh(lnk, "mkey", script, base_env(net), "--model", CUSTOM,
                "--write", ".")
    assert cp.returncode == 0, cp.stderr
    for f in ("env.txt", "proc.txt", "keyfile.txt", "grep.txt"):
        assert key not in (lnk.cwd / f).read_text(errors="replace"), f
    env = (lnk.cwd / "env.txt").read_text()
    assert "LNK_MODEL_FAKE_URL=http://127.0.0.1:" in env
    assert "FAKE_API_KEY" not in env
    (e,) = received(mark)
    assert e["headers"]["authorization"] == [f"Bearer {key}"]
    for h in ("x-api-key", "api-key", "cookie"):
        assert h not in e["headers"], e["headers"]
    assert "stolen" not in json.dumps(e)


@pytest.mark.parametrize("kind", ["echo", "echoslow"])
def test_key_echoed_by_the_provider_is_masked(lnk, net, kind):
    """Threat: the program asks the route's host for something that shows
    its request back (a debug endpoint, an error quoting the header): the
    key would come back inside. Masked, head and body, also when it comes
    split across reads; the rest of the answer passes as it came."""
    key, mark = secret(), uuid.uuid4().hex
    cp = run_sh(lnk, "mecho", curl_post(
        "LNK_MODEL_FAKE_URL", "/chat/completions",
        {"model": f"m-{kind}", "mark": mark}, "-i"),
        base_env(net, FAKE_API_KEY=key), "--model", CUSTOM)
    assert cp.returncode == 0, cp.stderr
    assert key not in cp.stdout
    assert key[:12] not in cp.stdout
    assert "X-Echo: Bearer " + "*" * len(key) in cp.stdout, cp.stdout
    body = json.loads(cp.stdout.split("\n\n", 1)[1])  # text mode: no \r
    assert body["you_sent"]["authorization"] == ["Bearer " + "*" * len(key)]
    (e,) = received(mark)
    assert e["headers"]["authorization"] == [f"Bearer {key}"]


def test_the_provider_reads_the_body_as_the_wire_did(lnk, net):
    """Threat: the wire reads the body as JSON and logs its model, but the
    program says the body is a form (a body can be both:
    {"x":"=&model=costly&y=","model":"cheap"}); a gateway that reads a
    form when told so (LiteLLM's proxy) served "costly" while the log
    said "cheap". Or it names a method override with '_' for '-', which a
    server mapping headers to CGI variables reads as the header the wire
    drops. The provider gets the wire's Content-Type, no coding, and no
    header with '_'."""
    mark = uuid.uuid4().hex
    body = {"x": "=&model=costly&y=", "model": "m-json", "mark": mark}
    cp = run_sh(lnk, "mform", curl_post(
        "LNK_MODEL_FAKE_URL", "/chat/completions", body,
        "-H 'content-type: application/x-www-form-urlencoded' "
        "-H 'Content-Encoding: gzip' -H 'X_HTTP_Method_Override: DELETE' "
        "-H 'X_Original_URL: /v1/files/x' -H 'X-Kept: yes'"),
        base_env(net, FAKE_API_KEY=secret()), "--model", CUSTOM)
    assert cp.returncode == 0, cp.stderr
    (e,) = received(mark)
    h = e["headers"]
    assert h["content-type"] == ["application/json"], h
    assert "content-encoding" not in h, h
    assert not [k for k in h if "_" in k], h
    assert h["x-kept"] == ["yes"], h


def test_a_key_quoted_cut_short_shows_no_piece_of_it(lnk, net):
    """Threat: the provider answers an error that quotes the request cut
    at a length ("invalid request: <its first n bytes>... (truncated)");
    the program moves the cut a byte at a time and reads the key but its
    last byte, which it then guesses. Every piece of 12 bytes of the key
    is masked: no cut shows one."""
    key, mark = secret(), uuid.uuid4().hex
    auth = "Bearer " + key
    calls = "; ".join(curl_post(
        "LNK_MODEL_FAKE_URL", "/chat/completions",
        {"model": "m-echocut", "mark": mark, "n": n})
        for n in range(len("Bearer "), len(auth) + 1))
    cp = run_sh(lnk, "mcut", calls, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.count("(truncated)") == len(key) + 1, cp.stdout
    for o in range(len(key) - 11):
        assert key[o:o + 12] not in cp.stdout, (key[o:o + 12], cp.stdout)
    # what is shorter than a piece is not the key's alone: it passes
    assert "Bearer sk-test-" + key[8:11] + "..." in cp.stdout, cp.stdout


def test_an_answer_head_read_two_ways_never_reaches_the_program(lnk, net):
    """Threat: the provider answers with two Transfer-Encoding lines
    (identity, then chunked) and the key in 5-byte chunks. The wire took
    the first line, masked the bytes as they came (the chunk framing
    inside the key hid it), and the program's client, reading the
    second, joined the chunks into the whole key. A head the two could
    read differently is a 502, logged."""
    key, mark = secret(), uuid.uuid4().hex
    cp = run_sh(lnk, "mte2", curl_post(
        "LNK_MODEL_FAKE_URL", "/chat/completions",
        {"model": "m-echote2", "mark": mark}, "-i"),
        base_env(net, FAKE_API_KEY=key), "--model", CUSTOM)
    assert key[:12] not in cp.stdout, cp.stdout
    assert "502" in cp.stdout and "read two ways" in cp.stdout, cp.stdout
    log = lnk("sandbox", "log", "--json", "--sandbox", "mte2")
    rows = [json.loads(x) for x in log.stdout.splitlines()]
    assert any("read two ways" in r["reason"] for r in rows), rows


def test_a_long_key_echoed_is_masked(lnk, net):
    """Threat: a route of one's own takes a long bearer token (a gateway's
    JWT, 1 to 4 KB); the masking held at most 1 KB and let a longer key
    back whole from an echoing endpoint."""
    key = "sk-test-" + "".join(uuid.uuid4().hex for _ in range(100))[:3000]
    mark = uuid.uuid4().hex
    cp = run_sh(lnk, "mlong", curl_post(
        "LNK_MODEL_FAKE_URL", "/chat/completions",
        {"model": "m-echo", "mark": mark}, "-i"),
        base_env(net, FAKE_API_KEY=key), "--model", CUSTOM)
    assert cp.returncode == 0, cp.stderr
    assert key[:12] not in cp.stdout and key[-12:] not in cp.stdout
    assert "X-Echo: Bearer " + "*" * len(key) in cp.stdout, cp.stdout[:300]
    (e,) = received(mark)
    assert e["headers"]["authorization"] == [f"Bearer {key}"]


def test_no_key_or_a_shared_key_file_refused(lnk, net):
    cp = lnk.run("--model", CUSTOM, "--", "true", env=base_env(net))
    assert cp.returncode == 125
    assert "no API key" in cp.stderr and "FAKE_API_KEY" in cp.stderr
    kdir = lnk.home / ".lnk" / "sandbox"
    kdir.mkdir(parents=True, exist_ok=True)
    kf = kdir / "fake.key"
    kf.write_text("sk-x\n")
    kf.chmod(0o644)
    cp = lnk.run("--model", CUSTOM, "--", "true", env=base_env(net))
    assert cp.returncode == 125
    assert "chmod 600" in cp.stderr
    kf.chmod(0o600)
    cp = lnk.run("--model", CUSTOM, "--", "true",
                 env=base_env(net, SSL_CERT_FILE="/nonexistent/ca.pem"))
    assert cp.returncode == 125
    assert "no CA certificates" in cp.stderr and "SSL_CERT_FILE" in cp.stderr
    kf.unlink()
    kf.symlink_to("/etc/hostname")
    cp = lnk.run("--model", CUSTOM, "--", "true", env=base_env(net))
    assert cp.returncode == 125, cp.stderr


def test_hostile_answers_clear_errors_and_the_wire_serves_on(lnk, net):
    key, mark = secret(), uuid.uuid4().hex

    def call(model, extra="", stream=False):
        body = {"model": model, "mark": mark}
        if stream:
            body["stream"] = True
        return (curl_post("LNK_MODEL_FAKE_URL", "/chat/completions", body,
                          extra + " -o out-" + model + " -w '%{http_code}\\n'")
                + "; echo rc=$?")

    script = ";".join([
        call("m-garbage"),
        call("m-never", "--max-time 2", stream=True),
        call("m-cut", stream=True),
        call("m-error"),
        call("m-nousage"),
        call("m-huge"),
        call("m-json"),
    ])
    cp = run_sh(lnk, "mhostile", script, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM, "--write", ".")
    lines = cp.stdout.split()
    # garbage: a clear 502 from the wire, never the provider's bytes
    assert lines[0] == "502", cp.stdout
    assert "not HTTP" in (lnk.cwd / "out-m-garbage").read_text()
    # never ending: the program's own timeout ends it (curl 28)
    assert "rc=28" in lines
    # the error answer passes as the provider gave it
    assert "fake error" in (lnk.cwd / "out-m-error").read_text()
    assert lines[-2:] == ["200", "rc=0"], cp.stdout
    rows = {r["target"].split()[0]: r for r in model_rows(lnk, "mhostile")}
    assert rows["fake/m-garbage"]["status"] == 0
    assert "not HTTP" in rows["fake/m-garbage"]["reason"]
    huge = json.loads((lnk.cwd / "out-m-huge").read_text())
    assert len(huge["choices"][0]["message"]["content"]) == 8 << 20
    for m in ("m-garbage", "m-never", "m-cut", "m-error", "m-nousage",
              "m-huge"):
        r = rows["fake/" + m]
        assert r["tokens_in"] is None and r["tokens_out"] is None, r
    assert rows["fake/m-cut"]["reason"] == "the provider's answer was cut short"
    assert rows["fake/m-error"]["status"] == 400
    assert (rows["fake/m-json"]["tokens_in"],
            rows["fake/m-json"]["tokens_out"]) == (O_IN, O_OUT)


def test_hostile_requests_refused(lnk, net):
    key = secret()
    big = lnk.cwd / "big.json"
    with open(big, "w") as f:
        f.write('{"model":"m-json","x":"')
        f.write("a" * (33 << 20))
        f.write('"}')
    script = ";".join([
        # another route's name, a path that climbs out of the base
        "curl -s -o /dev/null -w '%{http_code}\\n' "
        "http://127.0.0.1:3128/model/openai/v1/models",
        "curl -s --path-as-is -o /dev/null -w '%{http_code}\\n' "
        "\"$LNK_MODEL_FAKE_URL/../../secret\"",
        "curl -s --path-as-is -o /dev/null -w '%{http_code}\\n' "
        "\"$LNK_MODEL_FAKE_URL/%2e%2e/secret\"",
        # chunked request bodies and huge ones
        "curl -s -o /dev/null -w '%{http_code}\\n' -H 'Transfer-Encoding: "
        "chunked' \"$LNK_MODEL_FAKE_URL/chat/completions\" -d '{}'",
        "curl -s -o /dev/null -w '%{http_code}\\n' "
        "\"$LNK_MODEL_FAKE_URL/chat/completions\" --data-binary @big.json",
        # and the route still serves
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-json"}, "-o /dev/null -w '%{http_code}\\n'"),
    ])
    cp = run_sh(lnk, "mreq", script, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM, "--read", ".", timeout=120)
    assert cp.stdout.split() == ["403", "400", "400", "411", "413", "200"], \
        (cp.stdout, cp.stderr)


def curl_raw(path, body, extra=""):
    """A shell line: POST body (raw JSON text, as written) to the custom
    route's path, print the answer's status."""
    return (f"curl -s --max-time 20 -o /dev/null -w '%{{http_code}}\\n' "
            f"{extra} -H 'content-type: application/json' "
            f"\"$LNK_MODEL_FAKE_URL{path}\" --data-binary '{body}'")


def test_escaped_keys_read_as_the_provider_reads_them(lnk, net):
    """Threat: the program writes "str\\u0065am" and "m\\u006fdel", which
    the provider decodes as stream and model; a route that compared raw
    bytes would add no usage request (tokens unknown) and name no model."""
    key, mark = secret(), uuid.uuid4().hex
    script = ";".join([
        curl_raw("/chat/completions",
                 '{"m\\u006fdel":"m-stream","str\\u0065am":true,'
                 f'"mark":"{mark}"}}'),
        curl_raw("/chat/completions",
                 '{"\\u006d\\u006f\\u0064\\u0065\\u006c":"m\\u002djson",'
                 f'"mark":"{mark}"}}'),
        curl_raw("/chat/completions",
                 '{"model":"m-stream","stream":true,"stream\\u005foptions":'
                 f'{{"include_usage":true}},"mark":"{mark}"}}'),
    ])
    cp = run_sh(lnk, "mesc", script, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM)
    assert cp.stdout.split() == ["200", "200", "200"], (cp.stdout, cp.stderr)
    got = received(mark)
    assert len(got) == 3, got
    # the escaped stream asked for its usage; the one that gave its own
    # (escaped) stream_options got nothing added
    assert '"stream_options":{"include_usage":true}' in got[0]["body"]
    assert got[2]["body"].count("include_usage") == 1
    rows = model_rows(lnk, "mesc")
    assert [r["target"] for r in rows] == [
        "fake/m-stream POST /v1/chat/completions",
        "fake/m-json POST /v1/chat/completions",
        "fake/m-stream POST /v1/chat/completions"], rows
    for r in rows:
        assert (r["tokens_in"], r["tokens_out"]) == (O_IN, O_OUT), r


def test_keys_read_two_ways_refused(lnk, net):
    """Threat: a key given twice, or spelled so that only some readers
    take it for the key ("Stream" to Go's case-blind reader): the provider
    and lnk could read different values, so the call is refused, logged,
    and never reaches the provider."""
    key, mark = secret(), uuid.uuid4().hex
    bodies = [
        '{"model":"m-json","model":"m-stream","mark":"%s"}',
        '{"model":"m-stream","stream":false,"str\\u0065am":true,'
        '"mark":"%s"}',
        '{"model":"m-stream","Stream":true,"mark":"%s"}',
        '{"model":"m-json","mark":"%s","x":1,"x":2}',
        '{"model":"m-json","mark":"%s",}',
    ]
    script = ";".join([curl_raw("/chat/completions", b % mark)
                       for b in bodies] + [
        "curl -s --max-time 20 -H 'content-type: application/json' "
        "\"$LNK_MODEL_FAKE_URL/chat/completions\" --data-binary "
        "'{\"model\":\"a\",\"model\":\"b\"}'"])
    cp = run_sh(lnk, "mdup", script, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM)
    lines = cp.stdout.splitlines()
    assert lines[:5] == ["400"] * 5, (cp.stdout, cp.stderr)
    # the program is told why
    assert "\"model\" twice" in cp.stdout, cp.stdout
    assert received(mark) == []
    rows = model_rows(lnk, "mdup")
    assert len(rows) == 6, rows
    for r in rows:
        assert r["outcome"] == "refused", r
        assert r["target"] == "fake POST /v1/chat/completions", r
    reasons = [r["reason"] for r in rows]
    assert "\"model\" twice" in reasons[0]
    assert "\"stream\" twice" in reasons[1]
    assert "read as \"stream\"" in reasons[2]
    assert "top-level key twice" in reasons[3]
    assert "malformed JSON" in reasons[4]


def test_route_carries_model_calls_only(lnk, net):
    """Threat: the route adds the key to whatever the program sends under
    its base: GET .../files (the account's stored files), DELETE
    .../files/ID. Only the provider's inference calls pass; the rest is
    refused before anything goes out, and logged with method and path
    (never the query)."""
    key, pmark, qmark = secret(), uuid.uuid4().hex, uuid.uuid4().hex

    def call(method, path, extra=""):
        return (f"curl -s --path-as-is --max-time 20 -o /dev/null "
                f"-w '%{{http_code}}\\n' -X {method} {extra} "
                f"\"$LNK_MODEL_FAKE_URL{path}\"")

    script = ";".join([
        call("GET", f"/files?purpose={qmark}"),
        call("DELETE", f"/files/file-{pmark}"),
        call("GET", "/models"),
        call("POST", f"/files?q={qmark}", "-d '{}'"),
        call("PUT", "/chat/completions", "-d '{}'"),
        call("POST", "//files", "-d '{}'"),
        call("POST", "/chat/completions/../../files", "-d '{}'"),
        call("POST", "/chat/completions%2f..%2f..%2ffiles", "-d '{}'"),
        call("POST", "/chat/completions?_method=DELETE", "-d '{}'"),
        call("POST", "/chat/completions",
             "-H 'X-HTTP-Method-Override: DELETE' -d "
             f"'{{\"model\":\"m-json\",\"mark\":\"{pmark}\"}}'"),
    ])
    cp = run_sh(lnk, "mcalls", script, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM)
    assert cp.stdout.split() == ["403", "403", "403", "403", "403", "400",
                                 "400", "400", "400", "200"], \
        (cp.stdout, cp.stderr)
    # nothing but the model call reached the provider, without the
    # override header
    (e,) = received(pmark)
    assert (e["method"], e["path"]) == ("POST", "/v1/chat/completions")
    assert "x-http-method-override" not in e["headers"]
    rows = model_rows(lnk, "mcalls")
    assert [(r["target"], r["outcome"]) for r in rows[:5]] == [
        ("fake GET /v1/files", "refused"),
        (f"fake DELETE /v1/files/file-{pmark}", "refused"),
        ("fake GET /v1/models", "refused"),
        ("fake POST /v1/files", "refused"),
        ("fake PUT /v1/chat/completions", "refused"),
    ], rows
    assert "not a model call" in rows[0]["reason"]
    assert [r["outcome"] for r in rows[5:9]] == ["refused"] * 4, rows
    assert rows[9]["target"] == "fake/m-json POST /v1/chat/completions"
    # the query is the program's data: never in the log
    db = (lnk.home / ".lnk" / "sandbox" / "lnk.db").read_bytes()
    assert qmark.encode() not in db
    text = lnk("sandbox", "log", "--sandbox", "mcalls", check=True).stdout
    assert "GET /v1/files" in text and "DELETE /v1/files/file-" in text


def test_route_chooses_no_account_and_no_model_beside_the_body(lnk, net):
    """Threat: the program sends, beside the route's key, headers that
    choose the organization or project the key acts and is billed for
    (OpenAI-Organization, OpenAI-Project, X-Goog-User-Project) or that a
    gateway takes for another method or host (X-Original-Method,
    X-Envoy-Original-Method, X-Host); or a query naming a model a gateway
    would serve while the log names the body's. The headers go; the query
    is refused."""
    key, mark, qmark = secret(), uuid.uuid4().hex, uuid.uuid4().hex
    heads = ("-H 'OpenAI-Organization: org-evil' "
             "-H 'OpenAI-Project: proj_evil' "
             "-H 'X-Goog-User-Project: other' "
             "-H 'X-Original-Method: DELETE' "
             "-H 'X-Envoy-Original-Method: GET' -H 'X-Host: evil.test' "
             "-H 'azureml-model-deployment: other' -H 'X-Model: m-evil' "
             "-H 'X-Real-IP: 198.51.100.7' "
             "-H 'X-Kept: yes'")
    script = ";".join([
        "curl -s --max-time 20 -o /dev/null -w '%{http_code}\\n' "
        f"{heads} -d '{{\"model\":\"m-json\",\"mark\":\"{mark}\"}}' "
        "\"$LNK_MODEL_FAKE_URL/chat/completions\"",
        "curl -s --max-time 20 -o /dev/null -w '%{http_code}\\n' "
        f"-d '{{\"model\":\"m-json\",\"mark\":\"{qmark}\"}}' "
        "\"$LNK_MODEL_FAKE_URL/chat/completions?a=1&model=m-evil\"",
    ] + [
        "curl -s --max-time 20 -o /dev/null -w '%{http_code}\\n' "
        f"-d '{{\"model\":\"m-json\",\"mark\":\"{qmark}\"}}' "
        f"\"$LNK_MODEL_FAKE_URL/chat/completions?{q}\""
        for q in ("userProject=other", "key=AIzaEVIL",
                  "access_token=ya29.evil", "quotaUser=x")])
    cp = run_sh(lnk, "macct", script, base_env(net, FAKE_API_KEY=key),
                "--model", CUSTOM)
    assert cp.stdout.split() == ["200"] + ["400"] * 5, (cp.stdout, cp.stderr)
    (e,) = received(mark)
    for h in ("openai-organization", "openai-project", "x-goog-user-project",
              "x-original-method", "x-envoy-original-method", "x-host",
              "azureml-model-deployment", "x-model", "x-real-ip"):
        assert h not in e["headers"], (h, e["headers"])
    assert e["headers"].get("x-kept") == ["yes"], e["headers"]
    assert received(qmark) == []


def test_own_route_carries_the_calls_it_lists(lnk, net):
    """A route of one's own with a list: those calls and no others (not
    even the default inference calls it did not list)."""
    key, mark = secret(), uuid.uuid4().hex
    route = f"{CUSTOM} GET /models/*, POST /embeddings"
    script = ";".join([
        "curl -s --max-time 20 -o /dev/null -w '%{http_code}\\n' "
        f"\"$LNK_MODEL_FAKE_URL/models/m-json?x={mark}\"",
        "curl -s --max-time 20 -o /dev/null -w '%{http_code}\\n' "
        "\"$LNK_MODEL_FAKE_URL/models\"",
        curl_raw("/chat/completions", f'{{"model":"m-json","x":"{mark}"}}'),
        curl_raw("/embeddings", f'{{"model":"m-json","x":"{mark}"}}'),
    ])
    cp = run_sh(lnk, "mown", script, base_env(net, FAKE_API_KEY=key),
                "--model", route)
    assert cp.stdout.split() == ["200", "403", "403", "200"], \
        (cp.stdout, cp.stderr)
    rows = model_rows(lnk, "mown")
    assert [(r["target"], r["outcome"]) for r in rows] == [
        ("fake GET /v1/models/m-json", "ended"),
        ("fake GET /v1/models", "refused"),
        ("fake POST /v1/chat/completions", "refused"),
        ("fake/m-json POST /v1/embeddings", "ended")], rows
    assert "its entry lists" in rows[1]["reason"]


def test_long_targets_never_log_two_calls_as_one(lnk, net):
    """Invariant 7 (every call in the log, with its real target).
    Threat: the program chooses the model's name and a route's `*`
    segment; a long one pushed what tells two calls apart (the deployment,
    /chat/completions) past the row's bound, and two calls to different
    deployments logged the same target, cut without a mark. A long
    target keeps the path's start and end and a hash of the whole."""
    key = secret()
    model = "m-json" + "Z" * 120
    route = f"{CUSTOM} POST /deployments/*/chat/completions"
    script = ";".join(
        curl_raw(f"/deployments/{seg + 'x' * 150}/chat/completions",
                 f'{{"model":"{model}"}}')
        for seg in ("cheap", "expensive", "cheapy"))
    cp = run_sh(lnk, "mlong", script, base_env(net, FAKE_API_KEY=key),
                "--model", route)
    assert cp.stdout.split() == ["200"] * 3, (cp.stdout, cp.stderr)
    targets = [r["target"] for r in model_rows(lnk, "mlong")]
    assert len(targets) == 3 and len(set(targets)) == 3, targets
    for t in targets:
        assert t.startswith("fake/m-jsonZZZ") and "...#" in t, t
        assert t.endswith("/chat/completions"), t


def test_builtin_routes_carry_model_calls_only(lnk, net):
    """The built-in routes: Anthropic's messages and count_tokens pass,
    its files do not (GET, DELETE), nor OpenAI's."""
    lh = hooks_lnk(lnk)
    key, mark = secret(), uuid.uuid4().hex

    def call(method, path, body=None):
        d = f" -H 'content-type: application/json' -d '{body}'" if body \
            else ""
        return (f"curl -s --max-time 20 -o /dev/null -w '%{{http_code}}\\n' "
                f"-X {method} \"$ANTHROPIC_BASE_URL{path}\"{d}")

    body = json.dumps({"model": "claude-json", "mark": mark})
    script = ";".join([
        call("GET", "/v1/files"),
        call("DELETE", "/v1/files/file_1"),
        call("POST", "/v1/messages", body),
        call("POST", "/v1/messages/count_tokens", body),
        call("POST", "/v1/messages/batches", body),
    ])
    env = base_env(net, ANTHROPIC_API_KEY=key,
                   LNK_TEST_MODEL_ORIGIN=f"anthropic={ORIGIN}")
    cp = run_sh(lh, "mbcalls", script, env, "--model", "anthropic")
    assert cp.stdout.split() == ["403", "403", "200", "200", "403"], \
        (cp.stdout, cp.stderr)
    assert [e["path"] for e in received(mark)] == [
        "/v1/messages", "/v1/messages/count_tokens"]
    rows = model_rows(lh, "mbcalls")
    assert [(r["target"], r["outcome"]) for r in rows] == [
        ("anthropic GET /v1/files", "refused"),
        ("anthropic DELETE /v1/files/file_1", "refused"),
        ("anthropic/claude-json POST /v1/messages", "ended"),
        ("anthropic/claude-json POST /v1/messages/count_tokens", "ended"),
        ("anthropic POST /v1/messages/batches", "refused")], rows
    env["OPENAI_API_KEY"] = key
    env["LNK_TEST_MODEL_ORIGIN"] = f"openai={ORIGIN}/v1"
    script = ";".join([
        c.replace("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL") for c in (
            call("GET", "/files"), call("DELETE", "/files/file-1"),
            call("POST", "/files", "{}"))])
    cp = run_sh(lh, "mbcalls2", script, env, "--model", "openai")
    assert cp.stdout.split() == ["403", "403", "403"], (cp.stdout, cp.stderr)
    assert [r["target"] for r in model_rows(lh, "mbcalls2")] == [
        "openai GET /v1/files", "openai DELETE /v1/files/file-1",
        "openai POST /v1/files"]


def test_paused_wire_refuses_the_route(lnk, net):
    key = secret()
    script = ("while [ ! -e go ]; do sleep 0.1; done; "
              + curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                          {"model": "m-json"}))
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "mpause", "--model", CUSTOM,
         "--write", ".", "--", "sh", "-c", script], cwd=str(lnk.cwd),
        env=lnk.env(base_env(net, FAKE_API_KEY=key)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if lnk("sandbox", "pause", "mpause").returncode == 0:
                break
            time.sleep(0.1)
        (lnk.cwd / "go").touch()
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert "paused" in out, (out, err)
    rows = model_rows(lnk, "mpause")
    assert rows and rows[-1]["outcome"] == "refused"


def test_pause_ends_a_stream_that_never_ends(lnk, net):
    """Closing the wire ends an open model call like any other: the
    program's stream is cut (curl 18), not left to its own timeout (28)."""
    key = secret()
    script = (curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                        {"model": "m-never", "stream": True},
                        "-o /dev/null --max-time 50").replace(
                            "--max-time 20 ", "")
              + "; echo rc=$?")
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "mstop", "--model", CUSTOM,
         "--", "sh", "-c", script], cwd=str(lnk.cwd),
        env=lnk.env(base_env(net, FAKE_API_KEY=key)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 30
        while time.monotonic() < end:
            rows = model_rows(lnk, "mstop") if (
                lnk.home / ".lnk" / "sandbox" / "lnk.db").exists() else []
            if rows and rows[-1]["outcome"] == "allowed":
                break
            time.sleep(0.1)
        assert rows and rows[-1]["outcome"] == "allowed", rows
        lnk("sandbox", "pause", "mstop", check=True)
        out, err = p.communicate(timeout=45)
    finally:
        if p.poll() is None:
            p.kill()
    assert "rc=18" in out, (out, err)
    (r,) = model_rows(lnk, "mstop")
    assert r["outcome"] == "ended" and r["down"] > 0
    assert r["tokens_in"] is None


def test_traffic_shows_tokens_per_route(lnk, net):
    key = secret()
    script = ";".join([
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-json"}, "-o /dev/null"),
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-bytewise", "stream": True}, "-o /dev/null"),
        curl_post("LNK_MODEL_FAKE_URL", "/chat/completions",
                  {"model": "m-nousage"}, "-o /dev/null"),
        "touch done", "sleep 60"])
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "mtraffic", "--model", CUSTOM,
         "--write", ".", "--", "sh", "-c", script], cwd=str(lnk.cwd),
        env=lnk.env(base_env(net, FAKE_API_KEY=key)),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        want = {"provider": "fake", "calls": 3, "tokens_in": 2 * O_IN,
                "tokens_out": 2 * O_OUT, "unknown": 1}
        got = None
        end = time.monotonic() + 40
        while time.monotonic() < end:
            cp = lnk("sandbox", "traffic", "--json", check=True)
            for line in cp.stdout.splitlines():
                w = json.loads(line)
                if w["sandbox"] == "mtraffic" and w.get("models"):
                    got, lookups = w["models"], w.get("lookups")
            if got == [want]:
                break
            time.sleep(0.2)
        assert got == [want], got
        # the provider's name went to the resolver: counted as every
        # lookup the wire sends is
        assert lookups and lookups >= 1, cp.stdout
        text = lnk("sandbox", "traffic", check=True).stdout
        assert "model fake: 3 calls, tokens 26 in, 10 out (1 without " \
            "usage)" in text, text
    finally:
        p.terminate()
        p.communicate(timeout=30)


# ---- the built-in routes (a test build points them at the fake) ----


def test_builtin_anthropic_route(lnk, net):
    lh = hooks_lnk(lnk)
    key, mark = secret(), uuid.uuid4().hex
    script = ";".join([
        'echo "$ANTHROPIC_BASE_URL $ANTHROPIC_API_KEY"',
        curl_post("ANTHROPIC_BASE_URL", "/v1/messages",
                  {"model": "claude-json", "max_tokens": 5, "mark": mark},
                  "-H 'x-api-key: stolen' -H 'anthropic-version: 2023-06-01'"),
        curl_post("ANTHROPIC_BASE_URL", "/v1/messages",
                  {"model": "claude-stream", "stream": True, "mark": mark}),
        curl_post("ANTHROPIC_BASE_URL", "/v1/messages",
                  {"model": "claude-bytewise", "stream": True, "mark": mark}),
    ])
    env = base_env(net, ANTHROPIC_API_KEY=key,
                   LNK_TEST_MODEL_ORIGIN=f"anthropic={ORIGIN}")
    cp = run_sh(lh, "manth", script, env, "--model", "anthropic")
    assert cp.returncode == 0, cp.stderr
    first = cp.stdout.splitlines()[0]
    assert first.startswith("http://127.0.0.1:") and "/model/anthropic " in first
    assert key not in cp.stdout
    got = received(mark)
    assert len(got) == 3
    for e in got:
        assert e["path"] == "/v1/messages"
        assert e["headers"]["x-api-key"] == [key]
        assert "authorization" not in e["headers"]
    assert got[0]["headers"]["anthropic-version"] == ["2023-06-01"]
    assert "include_usage" not in got[1]["body"]
    rows = model_rows(lh, "manth")
    assert len(rows) == 3
    for r in rows:
        assert (r["tokens_in"], r["tokens_out"]) == (A_IN, A_OUT), r


def node_modules():
    nm = HERE / "node" / "node_modules"
    if not shutil.which("node"):
        pytest.skip("no node: ./install.sh --deps installs it")
    if not (nm / "@anthropic-ai" / "sdk").exists() or \
            not (nm / "openai").exists():
        pytest.skip("the SDKs are not installed: npm ci in "
                    "tests/e2e/node (tests/run-all does)")
    return HERE / "node"


def test_official_sdks_inside(lnk, net):
    """The official SDKs, run by node inside with nothing but the routes
    granted: a message, a streamed message and an error answer each,
    with the tokens the fake provider gave."""
    lh = hooks_lnk(lnk)
    nd = node_modules()
    key_a, key_o = secret(), secret()
    # a custom route must not be needed: the built-ins both go to the fake
    env = base_env(net, ANTHROPIC_API_KEY=key_a, OPENAI_API_KEY=key_o,
                   LNK_TEST_MODEL_ORIGIN=f"anthropic={ORIGIN}")
    cp = lh.run("--name", "msdk", "--model", "anthropic", "--read", str(nd),
                "--", "node", str(nd / "sdk_anthropic.mjs"), env=env,
                timeout=120)
    assert cp.returncode == 0, (cp.stdout, cp.stderr)
    out = json.loads(cp.stdout.strip().splitlines()[-1])
    assert out == {"message": "hello from fake", "usage": [A_IN, A_OUT],
                   "stream": "hello from fake", "error": 400}, out
    env["LNK_TEST_MODEL_ORIGIN"] = f"openai={ORIGIN}/v1"
    cp = lh.run("--name", "msdk2", "--model", "openai", "--read", str(nd),
                "--", "node", str(nd / "sdk_openai.mjs"), env=env,
                timeout=120)
    assert cp.returncode == 0, (cp.stdout, cp.stderr)
    out = json.loads(cp.stdout.strip().splitlines()[-1])
    assert out == {"message": "hello from fake", "usage": [O_IN, O_OUT],
                   "stream": "hello from fake", "error": 400}, out
    for name, want in (("msdk", (A_IN, A_OUT)), ("msdk2", (O_IN, O_OUT))):
        rows = model_rows(lh, name)
        ok = [r for r in rows if r["status"] == 200]
        assert len(ok) == 2, rows
        for r in ok:
            assert (r["tokens_in"], r["tokens_out"]) == want, r
        assert [r["status"] for r in rows].count(400) == 1, rows


# ---- the grant: spec, permissions ----


def test_models_key_of_a_spec(lnk, work):
    spec = work / "app.toml"
    spec.write_text('[internet]\nmodels = ["OpenAI", '
                    '"gw=https://LLM.example.com/v1/", "anthropic"]\n')
    cp = lnk("sandbox", "spec", "--spec", spec, check=True)
    assert 'models = ["openai", "gw=https://llm.example.com/v1", ' \
        '"anthropic"]' in cp.stdout, cp.stdout
    cp = lnk("sandbox", "permissions", "--json", check=True)
    keys = json.loads(cp.stdout)["keys"]
    (k,) = [k for k in keys if k["flag"] == "--model"]
    assert (k["section"], k["key"], k["type"]) == (
        "internet", "models", "array of strings")
    # a route's own calls: kept in one normal form
    spec.write_text('[internet]\nmodels = ["gw=https://llm.example.com/v1 '
                    ' POST /chat/completions ,GET /models/*"]\n')
    cp = lnk("sandbox", "spec", "--spec", spec, check=True)
    assert 'models = ["gw=https://llm.example.com/v1 POST ' \
        '/chat/completions, GET /models/*"]' in cp.stdout, cp.stdout
    for bad in ("gw=https://llm.example.com/v1 get /models",
                "gw=https://llm.example.com/v1 GET /../files",
                "gw=https://llm.example.com/v1 GET /files%2f"):
        cp = lnk("sandbox", "spec", "--model", bad)
        assert cp.returncode == 2 and "call" in cp.stderr, cp.stderr
    spec.write_text('[internet]\nmodels = ["gemini"]\n')
    cp = lnk("sandbox", "spec", "--spec", spec)
    assert cp.returncode == 2 and "no built-in model route" in cp.stderr
    cp = lnk("sandbox", "spec", "--model", "x=http://a.example/v1")
    assert cp.returncode == 2 and "https://" in cp.stderr


MODEL_FLOOD = r"""
import os, socket, time, urllib.parse
u = urllib.parse.urlsplit(os.environ["LNK_MODEL_FAKE_URL"])
t0 = time.time(); i = 0
while time.time() - t0 < 4:
    try:
        s = socket.create_connection((u.hostname, u.port), timeout=5)
        s.sendall(f"GET {u.path}/models/x{i} HTTP/1.1\r\nHost: h\r\n"
                  "Connection: close\r\n\r\n".encode())
        s.recv(200); s.close()
    except OSError:
        pass
    i += 1
print("sent", i)
"""


def test_refused_model_calls_are_bounded_in_the_log(lnk, net):
    """Invariant 7 (the log), promise: refusals are logged one by one up
    to a burst, then counted. Threat: the model route logged each refused
    call whatever their number (50,000 rows in 16 s, the log growing at
    1.2 MB a second) until the disk was full and every wire stopped."""
    (lnk.cwd / "flood.py").write_text(MODEL_FLOOD)
    cp = run_sh(lnk, "mflood", f"{sys.executable} flood.py",
                base_env(net, FAKE_API_KEY=secret()), "--model", CUSTOM,
                "--read", ".", timeout=120)
    assert "sent" in cp.stdout, (cp.stdout, cp.stderr)
    sent = int(cp.stdout.split()[-1])
    out = lnk("sandbox", "log", "--json", "--sandbox", "mflood", "--lines",
              "1000000", check=True)
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    refused = [r for r in rows if r["verb"] == "model"]
    counted = [r for r in rows if "not logged one by one" in json.dumps(r)]
    assert sent > 1500, sent
    assert len(refused) < min(sent, 1500), (len(refused), sent)
    assert counted, rows[-3:]
