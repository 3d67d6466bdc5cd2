#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stand-in for the GitHub REST API on 127.0.0.1, for the CI templates' tests.

  mock_github.py STATE.json PORTFILE

Serves the calls of ci-templates/github/feedback.py: the comments of an issue (list, create,
edit), check runs (create), a pull request (its head: STATE's "pulls"). Token "write" may do
anything, "read" only GET (writes answer 403 "Resource not accessible by integration", as
GitHub does for a fork's pull request); any other token is 401. Every request is appended to
STATE's "log" as "METHOD PATH TOKEN", and STATE is rewritten after each, so a test reads it
at any time. The port is written to PORTFILE once listening.
"""
import http.server
import json
import os
import re
import sys

STATE, PORTFILE = sys.argv[1], sys.argv[2]


def load():
    with open(STATE) as f:
        return json.load(f)


def save(st):
    with open(STATE + ".tmp", "w") as f:
        json.dump(st, f, indent=1)
    os.rename(STATE + ".tmp", STATE)


class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        st = load()
        token = (self.headers.get("Authorization") or "").replace("Bearer ", "")
        st["log"].append("%s %s %s" % (method, self.path, token))
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n)) if n else None
        path = self.path.split("?")[0]
        code, out = self.route(st, method, path, token, body)
        save(st)
        self.reply(code, out)

    def route(self, st, method, path, token, body):
        if token not in ("write", "read"):
            return 401, {"message": "Bad credentials"}
        if method != "GET" and token != "write":
            return 403, {"message": "Resource not accessible by integration"}
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/(.*)", path)
        rest = m.group(1) if m else ""
        if m := re.fullmatch(r"issues/(\d+)/comments", rest):
            if method == "GET":
                return 200, [c for c in st["comments"] if c["issue"] == int(m.group(1))]
            c = {"id": 100 + len(st["comments"]), "issue": int(m.group(1)), "body": body["body"]}
            st["comments"].append(c)
            return 201, c
        if (m := re.fullmatch(r"issues/comments/(\d+)", rest)) and method == "PATCH":
            for c in st["comments"]:
                if c["id"] == int(m.group(1)):
                    c["body"] = body["body"]
                    c["edits"] = c.get("edits", 0) + 1
                    return 200, c
            return 404, {"message": "Not Found"}
        if rest == "check-runs" and method == "POST":
            st["check_runs"].append(body)
            return 201, {"id": len(st["check_runs"])}
        if (m := re.fullmatch(r"pulls/(\d+)", rest)) and method == "GET":
            if m.group(1) in st["pulls"]:
                return 200, {"number": int(m.group(1)), "head": {"sha": st["pulls"][m.group(1)]}}
        return 404, {"message": "Not Found"}

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def log_message(self, *args):
        pass


if not os.path.exists(STATE):
    save({"log": [], "comments": [], "check_runs": [], "pulls": {}})
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_port))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
