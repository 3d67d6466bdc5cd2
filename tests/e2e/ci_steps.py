#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the shell steps of perfgate's CI templates outside CI, as the CI systems would.

  ci_steps.py github ACTION.yml DIR [OPTIONS]
  ci_steps.py workflow WORKFLOW.yml JOB DIR [OPTIONS]
  ci_steps.py gitlab TEMPLATE.yml[,PIPELINE.yml] JOB DIR [--var NAME=VALUE]...

  OPTIONS: --input NAME=VALUE  --github KEY=VALUE  --strategy KEY=VALUE  --event FILE.json
           --action OWNER/REPO=PATH  --state DIR  --until STEP_ID  --pause STEP_ID=FILE

github: the steps of a composite action, in order, in DIR, each `run:` with bash -eo pipefail.
${{ }} expressions are evaluated (contexts inputs, github, runner, strategy, steps, env,
needs; literals, ==, !=, !, &&, ||, parentheses, always(), success(), failure(),
cancelled(), startsWith, endsWith, contains, format), in the inputs' defaults too (strategy:
job-index 0, job-total 1 unless given). A step runs when its `if:` holds, by default when no
earlier step failed: after a failure only `always()` / `failure()` steps run, as in Actions;
steps.ID.outcome and .outputs follow. A fresh GITHUB_OUTPUT per step; GITHUB_ENV and
GITHUB_STEP_SUMMARY honoured (their paths come from the environment); GITHUB_ACTION_PATH set.
`uses:` steps: a local action (./PATH) or one mapped by --action runs as a nested composite;
with --state, actions/cache (restored at the step, saved at the end of the job when the key
missed), actions/cache/restore, actions/cache/save, actions/upload-artifact and
actions/download-artifact (of github.run_id, or its run-id input) are emulated in that
directory (the cache and artifacts of the "repository", shared by later runs: cache/KEY/N is
the Nth path of an entry, artifacts/RUN/NAME an artifact); others are listed. --until ID stops after that step.
--pause ID=FILE: after that step, FILE.paused is made and the job waits until FILE exists (at
most 600 s), so that a test can run another job in between, as two runners would.
Prints "step NAME: exit N|skipped|uses ACTION {with}" lines and, last, the action's outputs as
one JSON line. Exit status: the first failing step's, else 0.

workflow: JOB of a workflow file: its `if:` (skipped: exit 0, "job JOB: skipped"), then its
steps as above in DIR with the job's env; prints "job JOB: permissions {...}" first.
github.event comes from --event, github.token from --github token=VALUE.

gitlab: JOB of the YAML files (a template and the pipeline that includes it), with `extends:`
merged as GitLab does (mappings deeply, anything else replaced) and `!reference [JOB, KEY]`
resolved; the job's variables ($VAR expanded, --var overriding them), then before_script and
script (nested lists flattened) in one bash -eo pipefail shell in DIR. Exit status: the
script's.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}", re.S)
TOKEN = re.compile(r"\s*(?:('(?:[^']|'')*')|(==|!=|&&|\|\||<=|>=|[!(),<>])|"
                   r"([0-9]+(?:\.[0-9]+)?)|([A-Za-z_][A-Za-z0-9_.*-]*))")


class Expr:
    """A GitHub Actions expression, evaluated against ctx (a dict of contexts)."""

    def __init__(self, text, ctx):
        self.toks, self.ctx, self.i = [], ctx, 0
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError("cannot read expression %r at %d" % (text, pos))
            s, op, num, name = m.groups()
            if s is not None:
                self.toks.append(("val", s[1:-1].replace("''", "'")))
            elif op:
                self.toks.append(("op", op))
            elif num:
                self.toks.append(("val", float(num) if "." in num else int(num)))
            else:
                self.toks.append(("name", name))
            pos = m.end()

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, op=None):
        tok = self.peek()
        if op is not None and tok != ("op", op):
            raise ValueError("expected %s, got %r" % (op, tok))
        self.i += 1
        return tok

    def value(self):
        v = self.or_()
        if self.i != len(self.toks):
            raise ValueError("trailing %r" % (self.peek(),))
        return v

    def or_(self):
        v = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            w = self.and_()
            v = v if truthy(v) else w
        return v

    def and_(self):
        v = self.cmp()
        while self.peek() == ("op", "&&"):
            self.take()
            w = self.cmp()
            v = w if truthy(v) else v
        return v

    def cmp(self):
        v = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in ("==", "!=", "<", ">", "<=", ">="):
            op = self.take()[1]
            w = self.unary()
            a, b = norm(v), norm(w)
            v = {"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b,
                 ">=": a >= b}[op]
        return v

    def unary(self):
        if self.peek() == ("op", "!"):
            self.take()
            return not truthy(self.unary())
        if self.peek() == ("op", "("):
            self.take()
            v = self.or_()
            self.take(")")
            return v
        kind, tok = self.take()
        if kind == "val":
            return tok
        if kind != "name":
            raise ValueError("unexpected %r" % tok)
        if tok in ("true", "false"):
            return tok == "true"
        if tok == "null":
            return None
        if self.peek() == ("op", "("):
            self.take()
            args = []
            while self.peek() != ("op", ")"):
                args.append(self.or_())
                if self.peek() == ("op", ","):
                    self.take()
            self.take(")")
            return self.call(tok, args)
        return lookup(self.ctx, tok)

    def call(self, fn, args):
        status = self.ctx.get("__status", "success")
        s = [str(a if a is not None else "") for a in args]
        return {"always": lambda: True, "success": lambda: status == "success",
                "failure": lambda: status == "failure", "cancelled": lambda: False,
                "startswith": lambda: s[0].lower().startswith(s[1].lower()),
                "endswith": lambda: s[0].lower().endswith(s[1].lower()),
                "contains": lambda: (s[1].lower() in s[0].lower() if not isinstance(args[0], list)
                                     else args[1] in args[0]),
                "format": lambda: re.sub(r"\{(\d+)\}", lambda m: s[1 + int(m.group(1))], s[0]),
                "tojson": lambda: json.dumps(args[0]),
                "hashfiles": lambda: ""}[fn.lower()]()


def truthy(v):
    return v not in (False, 0, "", None)


def norm(v):
    if isinstance(v, str):
        return v.lower()
    return "" if v is None else v


def lookup(ctx, path):
    cur = ctx
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return ""
        cur = cur[part]
    return cur


def evaluate(expr, ctx):
    return Expr(expr, ctx).value()


def text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return "" if v is None else str(v)


def substitute(s, ctx):
    s = str(s)
    m = EXPR.fullmatch(s.strip())
    if m and s.strip() == s:
        return text(evaluate(m.group(1), ctx))
    return EXPR.sub(lambda m: text(evaluate(m.group(1), ctx)), s)


def condition(cond, ctx):
    """A step's or job's if: a bare expression, success() unless it calls a status function."""
    if cond is None or cond == "":
        return ctx.get("__status", "success") == "success"
    if isinstance(cond, bool):
        return cond
    cond = str(cond).strip()
    m = EXPR.fullmatch(cond)
    if m:
        cond = m.group(1)
    if not re.search(r"\b(always|success|failure|cancelled)\s*\(", cond):
        cond = "success() && (%s)" % cond
    return truthy(evaluate(cond, ctx))


def read_env_file(path):
    """GITHUB_ENV / GITHUB_OUTPUT: NAME=VALUE lines and NAME<<DELIM multi-line values."""
    out = {}
    if not os.path.exists(path):
        return out
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            val = []
            while i < len(lines) and lines[i] != delim:
                val.append(lines[i])
                i += 1
            i += 1
            out[name] = "\n".join(val)
        elif "=" in line:
            name, val = line.split("=", 1)
            out[name] = val
    return out


def run_bash(script, cwd, env):
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script)
    try:
        return subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", f.name],
                               cwd=cwd, env=env)
    finally:
        os.unlink(f.name)


def copy_into(src, dst):
    """Copy a file or a directory's contents to dst (created)."""
    if os.path.isdir(src):
        shutil.copytree(src, dst, dirs_exist_ok=True, symlinks=True)
    elif os.path.exists(src):
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        shutil.copy2(src, dst)


class Job:
    """One job's state: the run directory, environment, options, caches to save at its end."""

    def __init__(self, workdir, opts, env, run_id):
        self.workdir, self.opts, self.env, self.run_id = workdir, opts, env, str(run_id or 0)
        self.state = opts.get("state")
        self.post = []          # (key, paths): actions/cache entries to save at the end
        self.stop = False

    def abspath(self, p):
        p = os.path.expanduser(p.strip())
        return p if os.path.isabs(p) else os.path.join(self.workdir, p)

    def cache_restore(self, w):
        """(hit, restored): an entry of key w.key, else the newest one of a restore-key."""
        root = os.path.join(self.state, "cache")
        key, hit = w.get("key", ""), None
        if os.path.isdir(os.path.join(root, key)):
            hit = key
        else:
            for prefix in [k for k in w.get("restore-keys", "").split("\n") if k.strip()]:
                cands = sorted(glob.glob(os.path.join(root, glob.escape(prefix.strip()) + "*")),
                               key=os.path.getmtime)
                if cands:
                    hit = os.path.basename(cands[-1])
                    break
        if hit:
            for i, p in enumerate(l for l in w.get("path", "").split("\n") if l.strip()):
                copy_into(os.path.join(root, hit, str(i)), self.abspath(p))
        return hit == key, hit

    def cache_save(self, key, paths):
        dst = os.path.join(self.state, "cache", key)
        if os.path.exists(dst):
            return
        for i, p in enumerate(l for l in paths.split("\n") if l.strip()):
            copy_into(self.abspath(p), os.path.join(dst, str(i)))
        print("cache saved: %s" % key, flush=True)

    def emulate(self, uses, w):
        """An emulated action; its outputs (None: not emulated)."""
        name = uses.split("@")[0]
        if not self.state:
            return None
        if name in ("actions/cache", "actions/cache/restore"):
            exact, hit = self.cache_restore(w)
            if name == "actions/cache" and not exact:
                self.post.append((w["key"], w.get("path", "")))
            print("cache %s: %s" % ("hit" if exact else "miss", hit or w.get("key")), flush=True)
            return {"cache-hit": "true" if exact else "false", "cache-matched-key": hit or ""}
        if name == "actions/cache/save":
            self.cache_save(w["key"], w.get("path", ""))
            return {}
        if name == "actions/upload-artifact":
            dst = os.path.join(self.state, "artifacts", self.run_id, w["name"])
            if os.path.exists(dst):
                raise RuntimeError("an artifact named %s exists" % w["name"])
            os.makedirs(dst)
            for p in (l for l in w.get("path", "").split("\n") if l.strip()):
                copy_into(self.abspath(p.rstrip("/")), dst)
            return {"artifact-id": "1"}
        if name == "actions/download-artifact":
            run = w.get("run-id") or self.run_id
            src = os.path.join(self.state, "artifacts", run, w.get("name", ""))
            if not os.path.isdir(src):
                raise RuntimeError("no artifact named %s" % w.get("name"))
            copy_into(src, self.abspath(w.get("path") or "."))
            return {"download-path": self.abspath(w.get("path") or ".")}
        if name == "actions/checkout":
            return {}
        return None

    def finish(self):
        for key, paths in self.post:
            self.cache_save(key, paths)


def action_file(path):
    for name in ("action.yml", "action.yaml"):
        if os.path.isfile(os.path.join(path, name)):
            return os.path.join(path, name)
    return path


def resolve_action(uses, job):
    """The action.yml of a local or mapped `uses:`, else None."""
    if uses.startswith("./"):
        return action_file(os.path.join(job.workdir, uses))
    repo = uses.split("@")[0]
    for k, v in job.opts.get("action", {}).items():
        if repo == k or repo.startswith(k + "/"):
            return action_file(os.path.join(v, repo[len(k):].lstrip("/")))
    return None


def run_steps(steps, ctx, job, env_of):
    """Run steps under ctx (whose __status tracks failure); the first failing status."""
    status = 0
    for i, step in enumerate(steps):
        if job.stop:
            break
        name = step.get("name") or step.get("uses") or "step %d" % i
        sid = step.get("id", "__%d" % i)
        if not condition(step.get("if"), ctx):
            print("step %s: skipped" % name, flush=True)
            ctx["steps"][sid] = {"outcome": "skipped", "conclusion": "skipped", "outputs": {}}
            continue
        step_status, outputs = 0, {}
        if "uses" in step:
            wth = {k: substitute(v, ctx) for k, v in (step.get("with") or {}).items()}
            print("step %s: uses %s %s" % (name, step["uses"], json.dumps(wth)), flush=True)
            nested = resolve_action(step["uses"], job)
            try:
                if nested:
                    step_status, outputs = composite(nested, wth, ctx, job)
                else:
                    outputs = job.emulate(step["uses"], wth) or {}
            except (RuntimeError, KeyError) as e:
                print("step %s: error %s" % (name, e), flush=True)
                step_status = 1
        else:
            step_env = env_of(step)
            fd, out_path = tempfile.mkstemp(prefix="github_output.")
            os.close(fd)
            step_env["GITHUB_OUTPUT"] = out_path
            step_status = run_bash(substitute(step["run"], ctx), job.workdir, step_env)
            print("step %s: exit %d" % (name, step_status), flush=True)
            outputs = read_env_file(out_path)
            os.unlink(out_path)
            if job.env.get("GITHUB_ENV"):
                job.env.update(read_env_file(job.env["GITHUB_ENV"]))
                ctx["env"].update(read_env_file(job.env["GITHUB_ENV"]))
        outcome = "success" if step_status == 0 else "failure"
        coe = step.get("continue-on-error", False)
        soft = bool(step_status) and (coe is True or substitute(coe, ctx) == "true")
        ctx["steps"][sid] = {"outcome": outcome, "conclusion": "success" if soft else outcome,
                             "outputs": outputs}
        if step_status and not soft and not status:
            status = step_status
            ctx["__status"] = "failure"
        if job.opts.get("until") and step.get("id") == job.opts["until"]:
            job.stop = True
        pause = job.opts.get("pause", {}).get(step.get("id", ""))
        if pause:
            open(pause + ".paused", "w").close()
            for _ in range(6000):
                if os.path.exists(pause):
                    break
                time.sleep(0.1)
    return status


def composite(action_path, inputs, outer, job):
    """A composite action with inputs under the caller's github context: (status, outputs)."""
    action = yaml.safe_load(open(action_path))
    gh = dict(outer["github"])
    gh["action_path"] = os.path.dirname(os.path.abspath(action_path))
    ctx = {"inputs": {}, "github": gh, "steps": {}, "env": outer["env"],
           "runner": outer["runner"], "strategy": outer["strategy"], "__status": "success"}
    for name, spec in (action.get("inputs") or {}).items():
        ctx["inputs"][name] = substitute(spec.get("default", ""), ctx)
    ctx["inputs"].update(inputs)

    def env_of(step):
        env = dict(job.env)
        env["GITHUB_ACTION_PATH"] = gh["action_path"]
        for k, v in (step.get("env") or {}).items():
            env[k] = substitute(v, ctx)
        return env

    status = run_steps(action["runs"]["steps"], ctx, job, env_of)
    outputs = {k: substitute(v.get("value", ""), ctx)
               for k, v in (action.get("outputs") or {}).items()}
    return status, outputs


def contexts(opts, workdir):
    gh = dict(opts.get("github", {}))
    if opts.get("event"):
        gh["event"] = json.load(open(opts["event"]))
    gh.setdefault("workspace", workdir)
    env = dict(os.environ)
    env["GITHUB_ACTIONS"] = "true"
    env.setdefault("GITHUB_WORKSPACE", workdir)
    env.setdefault("RUNNER_TEMP", tempfile.gettempdir())
    runner = {"temp": env["RUNNER_TEMP"], "os": "Linux", "arch": "X64"}
    return gh, env, runner


def github(action_path, workdir, opts):
    gh, env, runner = contexts(opts, workdir)
    job = Job(workdir, opts, env, gh.get("run_id"))
    outer = {"github": gh, "env": {}, "runner": runner,
             "strategy": {"job-index": "0", "job-total": "1", **opts.get("strategy", {})}}
    status, outputs = composite(action_path, opts.get("input", {}), outer, job)
    job.finish()
    print(json.dumps(outputs), flush=True)
    return status


def workflow(path, name, workdir, opts):
    gh, env, runner = contexts(opts, workdir)
    flow = yaml.safe_load(open(path))
    spec = flow["jobs"][name]
    gh.setdefault("job", name)
    env.update({k: str(v) for k, v in (flow.get("env") or {}).items()})
    ctx = {"github": gh, "env": {}, "runner": runner, "steps": {}, "__status": "success",
           "strategy": {"job-index": "0", "job-total": "1", **opts.get("strategy", {})},
           "needs": json.loads(opts.get("needs", "{}"))}
    perms = spec.get("permissions", flow.get("permissions"))
    print("job %s: permissions %s" % (name, json.dumps(perms)), flush=True)
    if "if" in spec and not condition(spec["if"], ctx):
        print("job %s: skipped" % name, flush=True)
        return 0
    for k, v in (spec.get("env") or {}).items():
        env[k] = substitute(v, ctx)
    job = Job(workdir, opts, env, gh.get("run_id"))

    def env_of(step):
        e = dict(job.env)
        for k, v in (step.get("env") or {}).items():
            e[k] = substitute(v, ctx)
        return e

    status = run_steps(spec["steps"], ctx, job, env_of)
    job.finish()
    print("job %s: %s" % (name, "failure" if status else "success"), flush=True)
    return status


class Reference(list):
    """GitLab's !reference [JOB, KEY...]: the value at that path, resolved after merging."""


yaml.SafeLoader.add_constructor(
    "!reference", lambda loader, node: Reference(loader.construct_sequence(node)))


def merge(base, over):
    """GitLab's extends: mappings merged key by key, deeply; anything else replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for k, v in over.items():
            out[k] = merge(base.get(k), v) if k in base else v
        return out
    return over


def expand(jobs, name, depth=0):
    spec = jobs[name]
    parents = spec.get("extends") or []
    if isinstance(parents, str):
        parents = [parents]
    out = {}
    for p in parents:
        out = merge(out, expand(jobs, p, depth + 1))
    return merge(out, {k: v for k, v in spec.items() if k != "extends"})


def resolve(value, jobs):
    if isinstance(value, Reference):
        cur = expand(jobs, value[0])
        for key in value[1:]:
            cur = cur[key]
        return resolve(cur, jobs)
    if isinstance(value, list):
        return [resolve(v, jobs) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v, jobs) for k, v in value.items()}
    return value


def flatten(lines):
    for line in lines:
        if isinstance(line, list):
            yield from flatten(line)
        else:
            yield line


def gitlab(files, job, workdir, variables):
    jobs = {}
    for path in files.split(","):
        jobs.update(yaml.safe_load(open(path)))
    spec = resolve(expand(jobs, job), jobs)
    env = dict(os.environ)
    merged = {k: str(v) for k, v in (spec.get("variables") or {}).items()}
    merged.update(variables)
    for k, v in merged.items():
        old = os.environ.copy()
        os.environ.clear()
        os.environ.update(env)
        env[k] = os.path.expandvars(v)
        os.environ.clear()
        os.environ.update(old)
    script = "\n".join(flatten(spec.get("before_script", []) + spec.get("script", [])))
    return run_bash(script + "\n", workdir, env)


def options(args):
    """--NAME KEY=VALUE pairs into dicts, --event/--state/--until/--needs values."""
    out = {}
    i = 0
    while i < len(args):
        flag, val = args[i].lstrip("-"), args[i + 1]
        if flag in ("input", "github", "strategy", "action", "var", "pause"):
            k, v = val.split("=", 1)
            out.setdefault(flag, {})[k] = v
        else:
            out[flag] = os.path.abspath(val) if flag in ("event", "state") else val
        i += 2
    return out


def main(argv):
    if len(argv) >= 4 and argv[1] == "github":
        return github(argv[2], os.path.abspath(argv[3]), options(argv[4:]))
    if len(argv) >= 5 and argv[1] == "workflow":
        return workflow(argv[2], argv[3], os.path.abspath(argv[4]), options(argv[5:]))
    if len(argv) >= 5 and argv[1] == "gitlab":
        return gitlab(argv[2], argv[3], os.path.abspath(argv[4]), options(argv[5:]).get("var", {}))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
