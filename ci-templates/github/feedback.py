#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Post perfgate's feedback on a GitHub pull request through the REST API.

  feedback.py DIR

DIR holds what the report step of ci-templates/perfgate-ci.sh wrote: pr.json (the pull
request's number and head commit), summary.md (compare's Markdown summary) and check.json
(perfgate vote --system github). Two things are posted, each when asked for:

- the comment (PG_COMMENT=true): one comment per pull request and key, found by the hidden
  marker <!-- perfgate-comment:KEY --> (PG_COMMENT_KEY, default the check's name) among the
  pull request's comments and edited in place, else created;
- the check run (PG_CHECK_RUN=true): check.json with the pull request's head as head_sha, its
  annotations at the functions' source lines.

Environment: GITHUB_TOKEN (pull-requests: write for the comment, checks: write for the check
run), GITHUB_API_URL (https://api.github.com), GITHUB_REPOSITORY (OWNER/NAME). With
PG_EXPECT_HEAD_SHA (the fork recipe: the head commit of the workflow run that wrote DIR), the
results are posted only when pr.json names that commit and the pull request's head is that
commit, so that results uploaded by one pull request's code cannot be posted on another.

Nothing here decides the verdict: every problem (no token, a token that may not write, as on
a pull request from a fork, an API that cannot be reached) is one warning line saying what to
do, and the exit status is 0.
"""
import json
import os
import re
import sys
import urllib.error
import urllib.request

COMMENT_MAX = 65000          # GitHub refuses comment bodies over 65536 characters
FORK_HINT = ("for pull requests from forks use the workflow_run recipe "
             "(docs/ci.md, \"Pull requests from forks\")")


def warn(msg):
    """One line: a workflow warning under GitHub Actions, plain otherwise."""
    prefix = "::warning::" if os.environ.get("GITHUB_ACTIONS") == "true" else ""
    print("%sperfgate: %s" % (prefix, msg.replace("\n", " ")), flush=True)


class ApiError(Exception):
    pass


class Api:
    def __init__(self, token, url, repo):
        self.token, self.url, self.repo = token, url.rstrip("/"), repo

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        req.add_header("Accept", "application/vnd.github+json")
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                text = resp.read()
        except urllib.error.HTTPError as e:
            try:
                why = json.loads(e.read() or b"{}").get("message", "")
            except ValueError:
                why = ""
            raise ApiError("HTTP %d%s" % (e.code, ": " + why if why else "")) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise ApiError("could not reach %s (%s)" % (self.url, reason)) from None
        return json.loads(text) if text else None

    def repo_path(self, rest):
        return "/repos/%s%s" % (self.repo, rest)


def advice(err, what, permission):
    """What to do about a failed post, by the error."""
    text = str(err)
    if text.startswith(("HTTP 401", "HTTP 403", "HTTP 404")):
        return ("%s not posted (%s): give the job's token %s (permissions:), or %s"
                % (what, text, permission, FORK_HINT))
    return "%s not posted (%s); the verdict stands (job summary and exit status)" % (what, text)


def sticky_comment(api, number, key, body):
    """Edit the comment that carries the marker, else create it. Returns 'edited' or 'created'."""
    marker = "<!-- perfgate-comment:%s -->" % key
    body = marker + "\n" + body
    if len(body) > COMMENT_MAX:
        body = body[:COMMENT_MAX] + "\n\n(cut: the whole summary is in the job summary)"
    page = 1
    while True:
        comments = api.call("GET", api.repo_path(
            "/issues/%d/comments?per_page=100&page=%d" % (number, page))) or []
        for c in comments:
            if marker in (c.get("body") or ""):
                api.call("PATCH", api.repo_path("/issues/comments/%d" % c["id"]), {"body": body})
                return "edited"
        if len(comments) < 100:
            break
        page += 1
    api.call("POST", api.repo_path("/issues/%d/comments" % number), {"body": body})
    return "created"


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def summary_body(d, pr):
    try:
        with open(os.path.join(d, "summary.md")) as f:
            body = f.read()
    except OSError:
        body = ("### :warning: perfgate: no result\n\nperfgate could not record or compare "
                "this change (exit status 2): the job log says why.\n")
    if pr.get("run_url"):
        body += "\n[The job, its artifacts and flame graphs](%s)\n" % pr["run_url"]
    return body


def checked_pr(api, pr):
    """The pull request number, when pr.json is usable (and matches PG_EXPECT_HEAD_SHA)."""
    num = str(pr.get("number") or "")
    if not re.fullmatch(r"[0-9]+", num):
        warn("no pull request number in pr.json (the pr-number input): nothing posted")
        return None
    expect = os.environ.get("PG_EXPECT_HEAD_SHA", "")
    if expect:
        if pr.get("head_sha") != expect:
            warn("the results are of commit %s, not of the workflow run's head %s: not posted"
                 % (pr.get("head_sha"), expect))
            return None
        head = (api.call("GET", api.repo_path("/pulls/%s" % num)) or {}).get("head", {})
        if head.get("sha") != expect:
            warn("pull request #%s's head is %s, not %s: not posted"
                 % (num, head.get("sha"), expect))
            return None
    return int(num)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 0
    d = argv[1]
    e = os.environ.get
    want_comment, want_check = e("PG_COMMENT", "true") == "true", e("PG_CHECK_RUN", "true") == "true"
    if not (want_comment or want_check):
        return 0
    pr = read_json(os.path.join(d, "pr.json"))
    if pr is None:
        warn("no %s/pr.json (the report step's): nothing posted" % d)
        return 0
    token, repo = e("GITHUB_TOKEN", ""), e("GITHUB_REPOSITORY") or pr.get("repository", "")
    if not token:
        warn("no GitHub token: the comment and check run were not posted (pass github-token: "
             "${{ github.token }}, with pull-requests: write and checks: write)")
        return 0
    api = Api(token, e("GITHUB_API_URL") or "https://api.github.com", repo)
    try:
        number = checked_pr(api, pr)
    except ApiError as err:
        warn(advice(err, "nothing", "pull-requests: read"))
        return 0
    if number is None:
        return 0
    if want_comment:
        key = e("PG_COMMENT_KEY") or pr.get("check_name") or "perfgate"
        try:
            how = sticky_comment(api, number, key, summary_body(d, pr))
            print("perfgate: comment %s on pull request #%d" % (how, number), flush=True)
        except ApiError as err:
            warn(advice(err, "the comment was", "pull-requests: write"))
    check = read_json(os.path.join(d, "check.json")) if want_check else None
    if want_check and check is None:
        warn("no %s/check.json (perfgate vote's): no check run" % d)
    elif check is not None:
        if re.fullmatch(r"[0-9a-f]{40}", pr.get("head_sha") or ""):
            check["head_sha"] = pr["head_sha"]
        if pr.get("run_url"):
            check["details_url"] = pr["run_url"]
        try:
            api.call("POST", api.repo_path("/check-runs"), check)
            print("perfgate: check run '%s' posted (%s)" % (check.get("name"),
                                                            check.get("conclusion")), flush=True)
        except ApiError as err:
            warn(advice(err, "the check run was", "checks: write"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
