#!/usr/bin/env python3
"""Run the shell steps of perfgate's CI templates outside CI, as the CI systems would.

  ci_steps.py github ACTION.yml DIR [--input NAME=VALUE]... [--github KEY=VALUE]...
                                   [--strategy KEY=VALUE]...
  ci_steps.py gitlab TEMPLATE.yml[,PIPELINE.yml] JOB DIR [--var NAME=VALUE]...

github: every `run:` step of a composite action, in order, in DIR, with bash -eo pipefail;
${{ }} expressions (inputs.*, github.*, strategy.*, steps.*.outputs.*, ||, 'literals')
evaluated, in the inputs' defaults too (strategy: job-index 0, job-total 1 unless given); a fresh
GITHUB_OUTPUT per step; GITHUB_ENV and GITHUB_STEP_SUMMARY honoured (their paths come from the
environment); GITHUB_ACTION_PATH set. `uses:` steps are listed, not run. Stops at the first
failing step, like Actions. Prints "step NAME: exit N" lines and, last, the action's outputs as
one JSON line. Exit status: the failing step's, else 0.

gitlab: JOB of the YAML files (a template and the pipeline that includes it), with `extends:`
merged as GitLab does (mappings deeply, anything else replaced) and `!reference [JOB, KEY]`
resolved; the job's variables ($VAR expanded, --var overriding them), then before_script and
script (nested lists flattened) in one bash -eo pipefail shell in DIR. Exit status: the
script's.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def lookup(ctx, path):
    cur = ctx
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return ""
        cur = cur[part]
    return cur


def evaluate(expr, ctx):
    for term in expr.split("||"):
        term = term.strip()
        if term.startswith("'") and term.endswith("'"):
            val = term[1:-1]
        else:
            val = lookup(ctx, term)
        if val not in ("", None, False):
            return val
    return ""


def substitute(text, ctx):
    return EXPR.sub(lambda m: str(evaluate(m.group(1), ctx)), str(text))


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


def github(action_path, workdir, inputs, gh, strategy):
    action = yaml.safe_load(open(action_path))
    ctx = {"inputs": {}, "github": gh, "steps": {}, "env": {},
           "strategy": {"job-index": "0", "job-total": "1", **strategy}}
    for name, spec in (action.get("inputs") or {}).items():
        ctx["inputs"][name] = substitute(spec.get("default", ""), ctx)
    ctx["inputs"].update(inputs)
    gh.setdefault("action_path", os.path.dirname(os.path.abspath(action_path)))
    env = dict(os.environ)
    env["GITHUB_ACTION_PATH"] = gh["action_path"]
    env["GITHUB_ACTIONS"] = "true"
    env.setdefault("GITHUB_WORKSPACE", workdir)
    status = 0
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", "step %d" % i)
        if "uses" in step:
            wth = {k: substitute(v, ctx) for k, v in (step.get("with") or {}).items()}
            print("step %s: uses %s %s" % (name, step["uses"], json.dumps(wth)), flush=True)
            continue
        if status:
            continue
        step_env = dict(env)
        for k, v in (step.get("env") or {}).items():
            step_env[k] = substitute(v, ctx)
        fd, out_path = tempfile.mkstemp(prefix="github_output.")
        os.close(fd)
        step_env["GITHUB_OUTPUT"] = out_path
        status = run_bash(substitute(step["run"], ctx), workdir, step_env)
        print("step %s: exit %d" % (name, status), flush=True)
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": read_env_file(out_path)}
        os.unlink(out_path)
        if env.get("GITHUB_ENV"):
            env.update(read_env_file(env["GITHUB_ENV"]))
    outputs = {k: substitute(v.get("value", ""), ctx)
               for k, v in (action.get("outputs") or {}).items()}
    print(json.dumps(outputs), flush=True)
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


def pairs(args, flag):
    out = {}
    for i, a in enumerate(args):
        if a == flag:
            k, v = args[i + 1].split("=", 1)
            out[k] = v
    return out


def main(argv):
    if len(argv) >= 4 and argv[1] == "github":
        return github(argv[2], os.path.abspath(argv[3]), pairs(argv[4:], "--input"),
                      pairs(argv[4:], "--github"), pairs(argv[4:], "--strategy"))
    if len(argv) >= 5 and argv[1] == "gitlab":
        return gitlab(argv[2], argv[3], os.path.abspath(argv[4]), pairs(argv[5:], "--var"))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
