#!/usr/bin/env python3
"""A fake hosted-model provider for the model route's tests, over real TLS.

    fake_provider.py ADDR PORT CERT KEY LOG

Run in the test network (ip netns exec lnk-nethosts ...) with the test CA's
certificate. It speaks just enough of Anthropic's /v1/messages and OpenAI's
/v1/chat/completions to answer with KNOWN usage, and writes each request it
got (path, headers, body) as one JSON line to LOG, so a test can check what
reached the provider (the key) and what did not.

The model name in the request picks the answer:
  json       one JSON answer (Content-Length)
  stream     server-sent events (chunked), as the provider streams
  bytewise   the same stream, each byte of the chunked body in its own
             chunk and its own write (split at every boundary)
  error      a 400 error answer in the provider's format, no usage
  nousage    a JSON answer without usage
  garbage    bytes that are not HTTP, then close
  never      a stream that never ends (a ping every 50 ms)
  cut        a stream cut after message_start / the first chunk
  echochunks the request's key back in a chunked body, a chunk every 16
             bytes (the key across chunk framing)
  echocut    a 400 error that quotes the request's Authorization header
             cut to its first "n" bytes (n from the request's JSON)
  echote2    the key back in 5-byte chunks under two Transfer-Encoding
             lines (identity, then chunked): a head read two ways
  fallback   the JSON answer, but naming another model (as a gateway
             that fell back to a smaller one says)
  fallbackesc the same, the other model's name holding an ESC and a space
  huge       a JSON answer of 8 MiB (its usage at the end, past what the
             reader holds: the tokens stay unknown, the bytes all pass)
Usage: input 11, output 7 for Anthropic (message_start says output 1,
message_delta 7); prompt 13, completion 5 for OpenAI (only when the stream
asked for it with stream_options.include_usage, as OpenAI does).
"""
import json
import socket
import ssl
import sys
import threading
import time

ADDR, PORT, CERT, KEY, LOG = sys.argv[1], int(sys.argv[2]), *sys.argv[3:6]
lock = threading.Lock()

A_IN, A_OUT = 11, 7
O_IN, O_OUT = 13, 5


def log(entry):
    with lock, open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


def read_request(s):
    data = b""
    while b"\r\n\r\n" not in data:
        b = s.recv(65536)
        if not b:
            return None
        data += b
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers.setdefault(k.strip().lower(), []).append(v.strip())
    n = int(headers.get("content-length", ["0"])[0])
    while len(body) < n:
        b = s.recv(65536)
        if not b:
            break
        body += b
    return method, path, headers, body


def sse(events):
    out = b""
    for name, data in events:
        if name:
            out += b"event: " + name.encode() + b"\n"
        out += b"data: " + data.encode() + b"\n\n"
    return out


def anthropic_events(model, cut=False):
    ev = [("message_start", json.dumps({
        "type": "message_start",
        "message": {"id": "msg_1", "type": "message", "role": "assistant",
                    "model": model, "content": [], "stop_reason": None,
                    "usage": {"input_tokens": A_IN, "output_tokens": 1}}}))]
    if cut:
        return ev
    ev += [
        ("content_block_start", json.dumps({
            "type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}})),
        ("content_block_delta", json.dumps({
            "type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": "hello from fake"}})),
        ("content_block_stop", json.dumps({
            "type": "content_block_stop", "index": 0})),
        ("message_delta", json.dumps({
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": A_OUT}})),
        ("message_stop", json.dumps({"type": "message_stop"})),
    ]
    return ev


def openai_events(model, usage, cut=False):
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 1,
            "model": model}
    ev = [(None, json.dumps(dict(base, choices=[{
        "index": 0, "delta": {"role": "assistant", "content": "hello "},
        "finish_reason": None}])))]
    if cut:
        return ev
    ev.append((None, json.dumps(dict(base, choices=[{
        "index": 0, "delta": {"content": "from fake"},
        "finish_reason": "stop"}]))))
    if usage:
        ev.append((None, json.dumps(dict(base, choices=[], usage={
            "prompt_tokens": O_IN, "completion_tokens": O_OUT,
            "total_tokens": O_IN + O_OUT}))))
    ev.append((None, "[DONE]"))
    return ev


def send_chunked(s, body, bytewise):
    s.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
              b"Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n")
    if bytewise:
        for i in range(len(body)):
            s.sendall(b"1\r\n" + body[i:i + 1] + b"\r\n")
        for b in b"0\r\n\r\n":
            s.sendall(bytes([b]))
    else:
        s.sendall(b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")


def send_json(s, status, obj):
    body = json.dumps(obj).encode()
    s.sendall(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\nConnection: keep-alive\r\n\r\n"
              % (status, len(body)) + body)


def serve(s):
    req = read_request(s)
    if not req:
        return
    method, path, headers, body = req
    try:
        j = json.loads(body or b"{}")
    except ValueError:
        j = {}
    log({"method": method, "path": path, "headers": headers,
         "body": body.decode("utf-8", "replace")})
    model = j.get("model", "")
    kind = model.split("-")[-1] if isinstance(model, str) else ""
    anthropic = path.endswith("/messages")
    if kind == "garbage":
        s.sendall(b"\x00\xffnot http at all\r\n\r\n\x01\x02")
        return
    if kind == "error":
        if anthropic:
            send_json(s, 400, {"type": "error", "error": {
                "type": "invalid_request_error", "message": "fake error"}})
        else:
            send_json(s, 400, {"error": {"message": "fake error",
                                         "type": "invalid_request_error"}})
        return
    served = {"fallback": "small-fallback-2024",
              "fallbackesc": "small \u001b[2Jfallback"}.get(kind, model)
    if kind in ("json", "nousage", "fallback", "fallbackesc"):
        if anthropic:
            obj = {"id": "msg_1", "type": "message", "role": "assistant",
                   "model": served, "stop_reason": "end_turn",
                   "content": [{"type": "text", "text": "hello from fake"}],
                   "usage": {"input_tokens": A_IN, "output_tokens": A_OUT}}
        else:
            obj = {"id": "c1", "object": "chat.completion", "created": 1,
                   "model": served, "choices": [{
                       "index": 0, "finish_reason": "stop",
                       "message": {"role": "assistant",
                                   "content": "hello from fake"}}],
                   "usage": {"prompt_tokens": O_IN,
                             "completion_tokens": O_OUT,
                             "total_tokens": O_IN + O_OUT}}
        if kind == "nousage":
            obj.pop("usage")
        send_json(s, 200, obj)
        return
    if kind == "echochunks":
        # the echo as a server whose writer flushes in small fixed pieces
        # sends it: chunked, a chunk every 16 bytes, so the key in the
        # body lies across chunk framing
        auth = (headers.get("authorization") or headers.get("x-api-key")
                or [""])[0]
        body = json.dumps({"you_sent": auth}).encode()
        out = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n")
        for i in range(0, len(body), 16):
            piece = body[i:i + 16]
            out += b"%x\r\n" % len(piece) + piece + b"\r\n"
        s.sendall(out + b"0\r\n\r\n")
        return
    if kind == "echote2":
        auth = (headers.get("authorization") or [""])[0].encode()
        out = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
               b"Transfer-Encoding: identity\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n")
        for i in range(0, len(auth), 5):
            piece = auth[i:i + 5]
            out += b"%x\r\n" % len(piece) + piece + b"\r\n"
        s.sendall(out + b"0\r\n\r\n")
        return
    if kind == "echocut":
        auth = (headers.get("authorization") or [""])[0]
        n = j.get("n") if isinstance(j.get("n"), int) else 0
        send_json(s, 400, {"error": {
            "message": f"invalid request: {auth[:n]}... (truncated)"}})
        return
    if kind in ("echo", "echoslow"):
        # a debug endpoint: the request's headers back, in the head and
        # the body; echoslow in 7-byte writes, so a reader gets it split
        auth = (headers.get("authorization") or headers.get("x-api-key")
                or [""])[0]
        body = json.dumps({"you_sent": headers, "usage": {
            "prompt_tokens": O_IN, "completion_tokens": O_OUT}}).encode()
        raw = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
               b"X-Echo: " + auth.encode() + b"\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body) + body)
        if kind == "echo":
            s.sendall(raw)
            return
        for i in range(0, len(raw), 7):
            s.sendall(raw[i:i + 7])
            time.sleep(0.002)
        return
    if kind == "huge":
        send_json(s, 200, {"id": "c1", "choices": [{"message": {
            "content": "x" * (8 << 20)}}], "usage": {
            "prompt_tokens": O_IN, "completion_tokens": O_OUT}})
        return
    if kind == "never":
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        ping = b"event: ping\ndata: {\"type\": \"ping\"}\n\n"
        while True:
            s.sendall(b"%x\r\n" % len(ping) + ping + b"\r\n")
            time.sleep(0.05)
    cut = kind == "cut"
    inc = bool((j.get("stream_options") or {}).get("include_usage"))
    ev = anthropic_events(model, cut) if anthropic else \
        openai_events(model, inc, cut)
    data = sse(ev)
    if cut:
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        s.sendall(b"%x\r\n" % len(data) + data + b"\r\n")
        return
    send_chunked(s, data, kind == "bytewise")


def handle(ctx, c):
    try:
        c.settimeout(30)
        conn = ctx.wrap_socket(c, server_side=True)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, ssl.SSLError):
        c.close()
        return
    try:
        serve(conn)
    except (OSError, ssl.SSLError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((ADDR, PORT))
    ls.listen(64)
    while True:
        c, _ = ls.accept()
        threading.Thread(target=handle, args=(ctx, c), daemon=True).start()


main()
