#!/usr/bin/env python3
"""Seed the fuzz corpora from the shared oracles (read in place, copied into
fuzz/corpus/<target>/ at run time, never committed) and from our own vectors."""
import hashlib
import json
import os
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
oracles = pathlib.Path(os.environ.get("ELICIT_ORACLES", here.parent.parent / "shared" / "oracles"))
if not oracles.is_dir():
    sys.exit(f"seed.py: oracles not found at {oracles} (set ELICIT_ORACLES)")


def put(target, value):
    data = value if isinstance(value, bytes) else json.dumps(value).encode()
    folder = here / "corpus" / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


counts = {}
def add(target, value):
    put(target, value)
    counts[target] = counts.get(target, 0) + 1


# JSON-Schema-Test-Suite: each suite schema as a property and as a form, and the
# [schema, content] pairs the validate target reads.
suite = oracles / "json-schema-test-suite" / "draft2020-12"
for path in sorted(suite.rglob("*.json")):
    for group in json.loads(path.read_text()):
        schema = group.get("schema")
        if not isinstance(schema, dict):
            continue
        schema = {k: v for k, v in schema.items() if k != "$schema"}
        as_property = {"type": "object", "properties": {"v": schema}, "required": ["v"]}
        as_form = dict(schema, type="object")
        as_form.setdefault("properties", {})
        add("schema_parse", as_property)
        add("schema_parse", as_form)
        for case in group.get("tests", []):
            add("validate", [as_property, {"v": case.get("data")}])

# MCP examples and fixtures: whole messages for the protocol targets, and every
# requestedSchema found inside them for the schema targets.
def schemas_in(value):
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "requestedSchema":
                yield v
            yield from schemas_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from schemas_in(v)

for base in [oracles / "mcp-schema", oracles / "ts-sdk-corpus"]:
    for path in sorted(base.rglob("*.json")):
        if path.name == "schema.json":
            continue
        value = json.loads(path.read_text())
        add("protocol", value)
        for s in schemas_in(value):
            add("schema_parse", s)
            add("validate", [s, {}])

# ACP definitions' examples are not shipped; seed the protocol target with our own.
for message in [
    {"mode": "form", "sessionId": "s", "message": "m", "requestedSchema": {"type": "object", "properties": {}}},
    {"mode": "url", "requestId": 7, "message": "m", "elicitationId": "e", "url": "https://example.com/"},
    {"mode": "_custom", "sessionId": "s", "message": "m", "payload": [1]},
    {"action": "accept", "content": {"a": 1}},
    {"action": "decline"},
    {"action": "_later", "x": 1},
    {"elicitationId": "e"},
    {"form": {}, "url": None},
    {},
]:
    add("protocol", message)

for url in [
    "https://example.com/", "http://localhost:8080/cb", "https://bank.example@evil.example/",
    "https://xn--80ak6aa92e.com/", "https://раураl.com/", "javascript:alert(1)", "data:text/html,x",
    "https://127.0.0.1:8443/", "https://3232235777/", "https://example.com/\u202egnp.exe",
    "https://a.b.co.uk/path?token=abc#frag", "file:///etc/passwd",
]:
    add("url_review", url.encode())

# Contents for the derived types of the from_content target, valid and near-misses.
profile = {"name": "ada", "email": "ada@example.com", "age": 36, "small": 7, "big": 9, "ratio": 0.5,
           "flag": True, "level": "low_level", "tags": ["high"], "set": ["high", "low_level"], "day": "2024-02-29"}
add("from_content", profile)
for key, bad in [("name", "Ada"), ("age", 3.0), ("age", 301), ("small", -1), ("big", 1e300), ("ratio", 1e39),
                 ("level", "Low level"), ("tags", []), ("tags", ["high", "high", "high", "high"]),
                 ("email", None), ("day", "2023-02-29"), ("set", ["x"])]:
    add("from_content", dict(profile, **{key: bad}))
add("from_content", {"n": 3, "s": "x"})
add("from_content", {"n": 3, "extra": True})

# Form-engine sessions: each suite schema as a form with a few operations on it.
ops = [["text", "v", "3"], ["set", "v", "a"], ["select", "v", "a"], ["review"], ["clear", "v"], ["submit"]]
for path in sorted(suite.glob("*.json"))[:12]:
    for group in json.loads(path.read_text())[:3]:
        schema = group.get("schema")
        if isinstance(schema, dict):
            schema = {k: v for k, v in schema.items() if k != "$schema"}
            schema.setdefault("type", "string")
            add("form_engine", [{"type": "object", "properties": {"v": schema}, "required": ["v"]}, ops])
add("form_engine", [{"type": "object", "properties": {
    "n": {"type": "integer", "minimum": 1, "default": 2},
    "c": {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
    "m": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "maxItems": 1}}},
    [["text", "n", "3.0"], ["text", "c", "A"], ["select", "m", "x"], ["select", "m", "y"], ["review"], ["submit"]]])

# HTML forms: every kind with defaults, and the bodies a browser posts for them.
html_schema = {"type": "object", "title": "<b>\"x\"</b>", "properties": {
    "s": {"type": "string", "title": "<script>", "default": "\" onfocus=\"x", "maxLength": 4},
    "n": {"type": "integer", "minimum": 1, "default": 2},
    "f": {"type": "number"},
    "b": {"type": "boolean", "default": True},
    "c": {"type": "string", "oneOf": [{"const": "a", "title": "A&B"}, {"const": "<b>", "title": "B"}]},
    "m": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "maxItems": 1},
    "u": {"type": "geo-point"}}, "required": ["s", "c"]}
for body in ["f.s=ab&f.n=3&f.b=false&f.b=true&f.c=a&f.m=x&elicit-action=accept",
             "f.s=%3Cscript%3E&f.n=3.0&f.f=1e3&f.c=%3Cb%3E&f.m=x&f.m=y&elicit-action=accept",
             "f.n=x&f.f=&elicit-action=decline", "elicit-action=cancel", "f.s=a+b&f.c=B"]:
    add("html_form", [html_schema, body])

# Whole requests through the client engine: forms of every kind and URL requests, each
# answered by a few scripts (field answers, review choices, consent, the headless policy).
kitchen = dict(html_schema, properties=dict(html_schema["properties"],
    e={"type": "string", "format": "email"}, d={"type": "string", "format": "date", "default": "2024-02-29"},
    t={"type": "array", "items": {"anyOf": [{"const": "p", "title": "P"}, {"const": "q", "title": "Q"}]},
       "minItems": 1, "default": ["p"]},
    l={"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}))
scripts = [
    [["defaults"]],
    [["keep"], ["text", "3"], ["keep"], ["value", True], ["text", "A&B"], ["keep"], ["send"]],
    [["text", "too long"], ["text", "ok"], ["back"], ["keep"], ["clear"], ["send"], ["edit", "n"], ["text", "0"], ["text", "9"], ["send"]],
    [["decline"]], [["cancel"]], [["keep"], ["review-decline"]], [["keep"], ["review-cancel"]],
    [["open"]], [["consent-decline"]], [["consent-cancel"]], [],
]
requests = [
    {"mode": "form", "sessionId": "s", "message": "m", "requestedSchema": kitchen},
    {"mode": "form", "requestId": 3, "message": "m", "requestedSchema": {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2}}, "required": ["n"]}},
    {"mode": "form", "sessionId": "s", "message": "m", "requestedSchema": {"type": "object", "properties": {
        "x": {"type": "object"}}}},
    {"mode": "url", "sessionId": "s", "toolCallId": "t", "message": "m", "elicitationId": "e1",
     "url": "https://xn--80ak6aa92e.com/login"},
    {"mode": "url", "requestId": "r", "message": "m", "elicitationId": "e2", "url": "https://example.com/"},
    {"mode": "_custom", "sessionId": "s", "message": "m"},
    {"message": "mcp, no mode", "requestedSchema": {"type": "object", "properties": {"b": {"type": "boolean", "default": False}}}},
]
completions = [[{"elicitationId": "e1"}, {"elicitationId": "e1"}, {"elicitationId": "nope"}, {}],
               [{"elicitationId": "e2"}]]
for request in requests:
    for script in scripts:
        for dialect in ["acp", "mcp"]:
            add("client_respond", [dialect, request, script, completions[len(script) % 2]])

# The secure page's posts: the first byte dresses the request (bit 0 the form, bits 1-2
# Origin/Sec-Fetch-Site, bits 3-4 Content-Type, bits 5-6 the cookie, bit 7 a second
# post), the rest is the body.
api_key = ["f.api_key=sk-fleet-0123456789abcdefXYZ&elicit-action=accept", "f.api_key=short&elicit-action=accept",
           "f.api_key=sk-fleet-0123456789abcdefXYZ", "elicit-action=decline", "elicit-action=cancel&elicit-action=accept",
           "f.api_key=%F0%9F%94%91" * 8 + "&elicit-action=accept", "f.api_key=a+b+c+d+e+f+g+h+i+j&f.api_key=x"]
grant = ["f.token=abcdefghijklmnop_-12&f.scope=Read&f.days=30&f.ratio=0.5&f.remember=false&f.remember=true"
         "&f.tags=A&f.tags=C&elicit-action=accept",
         "f.token=abcdefghijklmnop&f.scope=Write&f.remember=false&elicit-action=accept",
         "f.token=bad%20token&f.scope=Admin&f.days=0&f.ratio=1e3&f.tags=A&f.tags=B&f.tags=C",
         "f.days=3.0&f.ratio=-0&elicit-action=decline"]
for dress in [0x00, 0x80, 0x02, 0x0a, 0x04, 0x06, 0x10, 0x18, 0x40, 0x60]:
    for body in api_key:
        add("page_submission", bytes([dress]) + body.encode())
    for body in grant:
        add("page_submission", bytes([dress | 1]) + body.encode())

# Tickets as Redis holds them (a write token, then the JSON), and the fields of a
# genuine one split at NUL bytes (elicitation id, message, user, schema, instance seed,
# changes).
owner = "a1" * 32
ticket = {"e": "e1", "u": "alice", "x": 4000000000000, "r": owner,
          "f": {"s": {"type": "object", "properties": {"api_key": {"type": "string", "title": "API key", "minLength": 16}},
                      "required": ["api_key"]}, "m": "Enter your API key."}, "a": "00" * 16}
for variant in [ticket, dict(ticket, d=True), dict(ticket, b="0123456789abcdef0123456789abcdef", p=True),
                {k: v for k, v in ticket.items() if k != "a"}, dict(ticket, a="AB" * 16), dict(ticket, elicitation_id="e1"),
                {"elicitation_id": "e1", "user": "alice", "expires_at": 4000000000000, "used": False}]:
    add("store_ticket", b"0123456789abcdef0123456789abcdef" + json.dumps(variant).encode())
for fields in [[b"e1", b"Enter your API key.", b"alice", json.dumps(ticket["f"]["s"]).encode(), b"b", b"\x01\x80\x10\x02"],
               [b"", b"", b"", b"not json", b"", b"null"], [b"e2", "‮<b>".encode(), b"", b"{}", b"x" * 40, b'"x"'],
               [b"e3", b"m", b"bob", b"[]", b"", b'{"x": 1}']]:
    add("store_ticket", b"\0".join(fields))

# Relay payloads: hostile bytes (the format byte, a short box), and envelopes split from
# their changes by a NUL byte.
for payload in [b"\x02" + bytes(48), b"\x00", b"\x02", b"\x03" + bytes(80), bytes(range(256))]:
    add("relay_message", payload)
for envelope in [{"m": {"Complete": {"id": "e1"}}},
                 {"m": {"Page": {"ack": 7, "page": {"token": "t", "action": "Accept", "content": {"api_key": "sk-1"}}}}},
                 {"m": {"Page": {"ack": 7, "page": {"token": "t", "action": "Decline", "content": None}}}},
                 {"m": {"Ack": {"ack": 18446744073709551615, "taken": True}}},
                 {"f": "b2" * 32, "m": {"Complete": {"id": "e1"}}, "x": 1}, {"f": 1, "m": {}}, ["f", {"Complete": ["e1"]}]]:
    for changes in [b"", b"\x05\x01", b"\x00\x80\x40\x02", b"{\"x\": [1, 2]}"]:
        add("relay_message", json.dumps(envelope).encode() + b"\0" + changes)

# Retries of MCP 2026-07-28: [requestState, inputResponses, mutation].
responses = [{}, {"booking": {"action": "accept", "content": {"party_size": 4, "phone": "+44 20 7946 0000"}},
                  "roots": {"roots": [{"uri": "file:///tmp"}]}},
             {"booking": {"action": "accept", "content": {"party_size": 40}}, "extra": True},
             {"booking": {"action": "decline"}, "roots": None}, {"booking": "accept"}]
for state in ["", "elicit1.", "elicit1.AAAA", "elicit1." + "A" * 80, "elicit1." + "_-" * 60 + "=", "elicit2.AAAA",
              "elicit1.\u00e9t\u00e9", "x" * 300]:
    for r in responses:
        for mutation in ["", "\u0001\u0001", "\u0008\u0080\u0030\u0001"]:
            add("request_state", [state, r, mutation])
add("request_state", ["elicit1.AAAA"])

print("seeded:", ", ".join(f"{t} {n}" for t, n in sorted(counts.items())))
