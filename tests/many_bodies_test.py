#!/usr/bin/env python3
"""Many keyframed bodies cost linear time: the work is counted, not timed.

    tests/many_bodies_test.py BLOBSIM

A run with 1,000 keyframed boxes writes 1,000 body includes. Each used to be listed in outputs.txt by
its own read and rewrite of the whole list (a thousand renames of outputs.txt, each list read with a
linear search per name: cubic in the bodies, 60 s at 4,000). Counted with strace: outputs.txt is
replaced a fixed number of times (the includes' listing, the commit's two), whatever the number of
bodies. And 10,000 bodies run, every include listed: a world held 1,024 colliders (one a body) in a
fixed array, and past 1,021 bodies a run failed with "out of memory" after that minute; its colliders
now grow as they are added (3 s for the 3 steps here, most of it creating the 10,000 includes).
Skipped (77) without strace.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BIN = os.path.abspath(sys.argv[1])
# LeakSanitizer cannot run under ptrace (the sanitizer build): off for the traced runs only.
ENV = dict(os.environ, ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "detect_leaks=0"])))
WORK = tempfile.mkdtemp(prefix="blobsim-bodies-")
BOX = """v -0.01 -0.01 -0.01
v 0.01 -0.01 -0.01
v 0.01 0.01 -0.01
v -0.01 0.01 -0.01
v -0.01 -0.01 0.01
v 0.01 -0.01 0.01
v 0.01 0.01 0.01
v -0.01 0.01 0.01
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
"""


def config(n):
    """n boxes on a 100-wide grid, each rising 0.1 over a second; 100 particles, 3 steps."""
    bodies = [{"file": "box.obj", "keys": [{"time": 0, "translate": [(i % 100) * 0.05 - 2.5, 0.5, (i // 100) * 0.05]},
                                           {"time": 1, "translate": [(i % 100) * 0.05 - 2.5, 0.6, (i // 100) * 0.05]}]}
              for i in range(n)]
    c = {"seed": 1, "environment": {"bodies": bodies, "planes": [{"point": [0, 0, 0], "normal": [0, 1, 0]}]},
         "particles": {"radius": 0.01, "emitters": [{"type": "random", "min": [-1, 1, -1], "max": [1, 2, 1],
                                                     "count": 100}]},
         "motion": {"steps": 3, "dt": 0.01, "gravity": [0, -9.81, 0]},
         "collision": {"method": "exact", "response": "slide"}, "output": {"frame_every": 0}}
    path = os.path.join(WORK, f"b{n}.json")
    with open(path, "w") as f:
        json.dump(c, f)
    return path


def run_bodies(n, trace=None):
    """Runs n bodies (under strace, writing its log to `trace`, when given); checks that every body's
    include is written and listed."""
    out = os.path.join(WORK, f"out{n}")
    cmd = [BIN, "run", config(n), "-o", out, "--quiet", "--threads", "1"]
    if trace is not None:
        cmd = ["strace", "-f", "-qq", "-e", "trace=rename,renameat,renameat2", "-o", trace] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=ENV)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: {n} bodies: exit {r.returncode}: {r.stderr}")
    includes = [f for f in os.listdir(out) if f.startswith("body_") and f.endswith(".inc")]
    listed = set(open(os.path.join(out, "outputs.txt")).read().split("\n"))
    if len(includes) != n or not all(f in listed for f in includes):
        raise SystemExit(f"FAIL: {n} bodies: {len(includes)} includes, not all listed")


def list_replacements(n):
    """How many times a run with n bodies renames a file onto outputs.txt."""
    log = os.path.join(WORK, f"strace{n}.txt")
    run_bodies(n, log)
    return sum(1 for line in open(log) if '/outputs.txt"' in line and "rename" in line)


def main():
    if shutil.which("strace") is None:
        print("SKIP: strace is not installed (apt-get install strace); the work is counted with it")
        return 77
    with open(os.path.join(WORK, "box.obj"), "w") as f:
        f.write(BOX)
    counts = {n: list_replacements(n) for n in (10, 1000)}
    if counts[1000] != counts[10] or counts[10] > 4:
        print(f"FAIL: outputs.txt replaced {counts} times (bodies: replacements): it must not grow with the bodies")
        return 1
    run_bodies(10000)
    print(f"ok: outputs.txt replaced {counts[1000]} times for 10 and for 1000 bodies; 10,000 bodies run")
    return 0


try:
    status = main()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
sys.exit(status)
