#!/usr/bin/env python3
"""End-to-end tests of `blobsim batch` on the tiny scene of tests/run/ (each run takes milliseconds).

    tests/batch_test.py BLOBSIM TESTS_RUN_DIR MODE

MODE:
  expand     sweep expansion: the cartesian product, its order, folder names (sanitised, cut with a
             hash; a one-value array names nothing), overrides, paths relative to the batch file, folders of configs, --shard slices;
             all from --dry-run, against an expansion computed here with itertools.product
  uptodate   a second batch skips every run; a touch (same bytes, new mtime) skips too; changing an
             OBJ's bytes re-runs exactly the runs that read it; a changed config value, a deleted
             output and --force re-run
  failure    one broken config in a batch of five: four ok, exit 1, batch.json gives the reason (the
             same message as `blobsim check`); --jobs 2 gives the same outputs as --jobs 1
  shard      the batch as 3 shards through GNU parallel equals the unsharded batch: the same run
             folders, byte-identical scene.pov and particles.ply (skipped without `parallel`)
  signal     SIGINT and SIGTERM during a batch: exit 130/143, batch.json consistent (interrupted
             runs, not-run runs), no temporary file left
  own        the user's batch.json in the root is refused, by -o and by the "output" key, a link too;
             a line per finished run off a terminal
Exit 77 means skipped (meson's convention).
"""
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN, SRC, MODE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
WORK = tempfile.mkdtemp(prefix="blobsim-batch-")


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    shutil.rmtree(WORK, ignore_errors=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def batch(*args, cwd=WORK, expect=0):
    r = subprocess.run([BIN, "batch", *args], cwd=cwd, capture_output=True, text=True)
    if expect is not None and r.returncode != expect:
        fail(f"blobsim batch {' '.join(args)}: exit {r.returncode}, expected {expect}\n{r.stdout}{r.stderr}")
    return r


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def tiny(folder, name="tiny.json", obj="tiny.obj", **changes):
    """A copy of tests/run/tiny.json (small and fast: 4 steps, no frames) in folder, naming obj."""
    config = json.load(open(os.path.join(SRC, "tiny.json")))
    config["environment"]["meshes"][0]["file"] = obj
    config["motion"]["steps"] = 4
    config["output"]["frame_every"] = 0
    for key, value in changes.items():
        config[key] = value
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, name), json.dumps(config, indent=1))
    if not os.path.exists(os.path.join(folder, obj)):
        shutil.copy(os.path.join(SRC, "tiny.obj"), os.path.join(folder, obj))
    return os.path.join(folder, name)


def statuses(batch_json):
    data = json.load(open(batch_json))
    return {r["name"]: r["status"] for r in data["runs"]}, data


def listing(result):
    """--dry-run lines: (index, state, output, config, [overrides])."""
    rows = []
    for line in result.stdout.splitlines():
        f = line.split("\t")
        rows.append((int(f[0]), f[1], f[2], f[3], f[4:]))
    return rows


def mode_expand():
    tiny(os.path.join(WORK, "cfg"))
    sweep = {"particles.radius": [0.01, 0.02, 0.04], "collision.method": ["exact", "karabassi"]}
    write(os.path.join(WORK, "cfg", "b.json"), json.dumps({
        "output": "../out",
        "set": {"motion.steps": 2},
        "runs": [
            {"config": "tiny.json", "set": sweep},
            "tiny.json",
            {"config": "tiny.json", "name": "grav/g", "set": {
                "motion.gravity": [[0, -9.81, 0], [0, -1, 0]],
                "render.particle_material": ["snow", "x y/z"], "seed": [5]}},
            {"config": "tiny.json", "name": "long", "set": {"render.particle_material": ["a" * 300, "a" * 299 + "b"]}},
        ]}))
    # From another working directory: the config and output paths are relative to the batch file.
    other = os.path.join(WORK, "elsewhere")
    os.makedirs(other)
    rows = listing(batch("cfg/b.json", "--dry-run", cwd=WORK))
    rows2 = listing(batch("../cfg/b.json", "--dry-run", cwd=other))
    check([(r[2], r[3]) for r in rows2] == [("../" + r[2], "../" + r[3]) for r in rows],
        "paths relative to the batch file")
    config = "cfg/tiny.json"
    expected = []
    for radius, method in itertools.product(*sweep.values()):
        expected.append((f"out/tiny/particles.radius={radius},collision.method={method}", config,
            ["motion.steps=2", f"particles.radius={radius}", f'collision.method="{method}"']))
    expected.append(("out/tiny", config, ["motion.steps=2"]))
    for g, m in itertools.product(["[0,-9.81,0]", "[0,-1,0]"], ["snow", "x y/z"]):
        name = f"motion.gravity={g},render.particle_material={m}".replace("[", "_").replace("]", "_")
        expected.append(("out/grav/g/" + name.replace(" ", "_").replace("/", "_"), config,
            ["motion.steps=2", f"motion.gravity={g}", f'render.particle_material="{m}"', "seed=5"]))
    check(len(rows) == len(expected) + 2, f"{len(rows)} runs, expected {len(expected) + 2}")
    for i, (row, exp) in enumerate(zip(rows, expected)):
        check(row[0] == i and row[1] == "run", f"row {i}: {row}")
        check((row[2], row[3], row[4]) == exp, f"run {i}: {row[2:]} != {exp}")
    # Over-long names: cut to 200 bytes, ending in '~' and a hash, so the two stay apart.
    longs = [os.path.basename(r[2]) for r in rows[-2:]]
    check(all(len(n) == 200 and n[-17] == "~" for n in longs) and longs[0] != longs[1], f"long names {longs}")
    # Shards: run i belongs to shard i mod N; the union of the shards is the batch.
    seen = []
    for k in range(3):
        part = listing(batch("cfg/b.json", "--dry-run", "--shard", f"{k}/3"))
        check(all(r[0] % 3 == k for r in part), f"shard {k}/3: {[r[0] for r in part]}")
        seen += [r[0] for r in part]
    check(sorted(seen) == list(range(len(rows))), "the shards cover the batch once")
    # A folder of configs: its *.json by name; configs on the command line in their order.
    folder = os.path.join(WORK, "folder")
    for name in ("c.json", "a.json", "b.json"):
        tiny(folder, name)
    write(os.path.join(folder, "notes.txt"), "not a config")
    rows = listing(batch("folder", os.path.join(folder, "a.json"), "-o", "o2", "--dry-run", expect=None))
    check(len(rows) == 0, "a.json twice is an error")
    rows = listing(batch("folder", "-o", "o2", "--dry-run"))
    check([(r[2], r[3]) for r in rows] == [("o2/a", "folder/a.json"), ("o2/b", "folder/b.json"),
        ("o2/c", "folder/c.json")], f"folder listing {rows}")
    check(not os.path.exists(os.path.join(WORK, "o2")) and not os.path.exists(os.path.join(WORK, "out")),
        "--dry-run writes nothing")


def mode_uptodate():
    cfg = os.path.join(WORK, "cfg")
    tiny(cfg, "a.json", "a.obj")
    tiny(cfg, "b.json", "b.obj")
    write(os.path.join(cfg, "batch.json"), json.dumps({"output": "../out", "runs": [
        {"config": "a.json", "set": {"particles.radius": [0.02, 0.03]}}, "b.json"]}))
    names = ["a/particles.radius=0.02", "a/particles.radius=0.03", "b"]
    out = os.path.join(WORK, "out")

    def run(*extra):
        batch("cfg/batch.json", *extra)
        s, data = statuses(os.path.join(out, "batch.json"))
        check(sorted(s) == sorted(names), f"runs {sorted(s)}")
        return s

    def mtimes():
        return {n: os.stat(os.path.join(out, n, "scene.pov")).st_mtime_ns for n in names}

    check(set(run().values()) == {"ok"}, "first batch: every run ok")
    before = mtimes()
    check(set(run("--jobs", "2").values()) == {"skipped"}, "second batch: every run up to date")
    check(mtimes() == before, "a skipped run leaves its outputs alone")
    # A touch changes the mtime, not the bytes: still up to date (content hashes, not times).
    os.utime(os.path.join(cfg, "a.obj"), (time.time() + 100, time.time() + 100))
    check(set(run().values()) == {"skipped"}, "a touched OBJ re-runs nothing")
    # New bytes in a.obj: exactly the two runs that read it run again.
    with open(os.path.join(cfg, "a.obj"), "a") as f:
        f.write("# changed\n")
    s = run()
    check(s == {names[0]: "ok", names[1]: "ok", "b": "skipped"}, f"after changing a.obj: {s}")
    # Reformatting the config is no change (the hash is over the JSON values); a new value is.
    config = json.load(open(os.path.join(cfg, "b.json")))
    write(os.path.join(cfg, "b.json"), json.dumps(config))
    check(set(run().values()) == {"skipped"}, "a reformatted config re-runs nothing")
    config["seed"] = 8
    write(os.path.join(cfg, "b.json"), json.dumps(config))
    check(run() == {names[0]: "skipped", names[1]: "skipped", "b": "ok"}, "a changed config re-runs its run")
    # A missing output re-runs; --force re-runs everything.
    os.remove(os.path.join(out, names[1], "particles.ply"))
    check(run() == {names[0]: "skipped", names[1]: "ok", "b": "skipped"}, "a deleted particles.ply re-runs")
    check(set(run("--force").values()) == {"ok"}, "--force runs every run")
    lst = listing(batch("cfg/batch.json", "--dry-run"))
    check([r[1] for r in lst] == ["up-to-date"] * 3, f"--dry-run shows the runs up to date: {lst}")

    # A body's OBJ is an input too: new bytes in it re-run the run that reads it, and only that one.
    shutil.copy(os.path.join(SRC, "tiny.obj"), os.path.join(cfg, "body.obj"))
    body = {"file": "body.obj", "keys": [{"time": 0, "translate": [0, 0.5, 0]},
                                         {"time": 1, "translate": [0.1, 0.5, 0]}]}
    config = json.load(open(os.path.join(cfg, "b.json")))
    config["environment"]["bodies"] = [body]
    write(os.path.join(cfg, "b.json"), json.dumps(config))
    check(run()["b"] == "ok", "a config with a body runs")
    check(run()["b"] == "skipped", "and is then up to date")
    with open(os.path.join(cfg, "body.obj"), "a") as f:
        f.write("# changed\n")
    check(run() == {names[0]: "skipped", names[1]: "skipped", "b": "ok"}, "a changed body OBJ re-runs its run")


def mode_failure():
    folder = os.path.join(WORK, "five")
    for k in range(5):
        tiny(folder, f"run{k}.json", seed=k + 1)
    broken = json.load(open(os.path.join(folder, "run2.json")))
    broken["particles"]["radius"] = -1
    write(os.path.join(folder, "run2.json"), json.dumps(broken))
    check_msg = subprocess.run([BIN, "check", "five/run2.json"], cwd=WORK, capture_output=True, text=True)
    check(check_msg.returncode == 1, "blobsim check rejects the broken config")
    reason = check_msg.stderr.strip().removeprefix("blobsim: ")
    outputs = {}
    for jobs in ("1", "2"):
        r = batch("five", "-o", "out" + jobs, "--jobs", jobs, expect=1)
        s, data = statuses(os.path.join(WORK, "out" + jobs, "batch.json"))
        check(s == {"run0": "ok", "run1": "ok", "run2": "failed", "run3": "ok", "run4": "ok"}, f"statuses {s}")
        check(data["counts"]["ok"] == 4 and data["counts"]["failed"] == 1, f"counts {data['counts']}")
        bad = [x for x in data["runs"] if x["name"] == "run2"][0]
        check(bad["exit_code"] == 1 and bad["error"] == reason, f"run2's record {bad}, expected error {reason!r}")
        check(bad["config"] == "five/run2.json" and bad["output"] == f"out{jobs}/run2", f"run2's record {bad}")
        check(not os.path.exists(os.path.join(WORK, "out" + jobs, "run2")), "the failed run left no folder")
        check(reason in r.stdout and "failed" in r.stdout, f"the table names the failure:\n{r.stdout}")
        outputs[jobs] = {n: open(os.path.join(WORK, "out" + jobs, n, "particles.ply"), "rb").read()
            for n in ("run0", "run1", "run3", "run4")}
    check(outputs["1"] == outputs["2"], "--jobs 2 gives the outputs of --jobs 1")


def tree(root):
    """{run folder: (scene.pov bytes, particles.ply bytes)} below root."""
    found = {}
    for folder, dirs, files in os.walk(root):
        if "summary.json" in files:
            rel = os.path.relpath(folder, root)
            found[rel] = tuple(open(os.path.join(folder, f), "rb").read() for f in ("scene.pov", "particles.ply"))
    return found


def mode_shard():
    parallel = shutil.which("parallel")
    if parallel is None:
        print("skipped: GNU parallel is not installed (apt-get install parallel)")
        shutil.rmtree(WORK, ignore_errors=True)
        sys.exit(77)
    cfg = os.path.join(WORK, "cfg")
    tiny(cfg)
    write(os.path.join(cfg, "b.json"), json.dumps({"runs": [
        {"config": "tiny.json", "set": {"particles.radius": [0.02, 0.03, 0.04], "seed": [1, 2]}},
        {"config": "tiny.json", "name": "exact", "set": {"collision.method": "karabassi"}}]}))
    batch("cfg/b.json", "-o", "full", "--jobs", "2")
    r = subprocess.run([parallel, "--will-cite", "--halt", "now,fail=1", BIN, "batch", "cfg/b.json", "-o", "sharded",
        "--quiet", "--shard", "{}/3", ":::", "0", "1", "2"], cwd=WORK, capture_output=True, text=True)
    check(r.returncode == 0, f"parallel: exit {r.returncode}\n{r.stdout}{r.stderr}")
    full, sharded = tree(os.path.join(WORK, "full")), tree(os.path.join(WORK, "sharded"))
    check(len(full) == 7, f"{len(full)} runs in the unsharded batch")
    check(sorted(full) == sorted(sharded), f"run folders differ: {sorted(full)} vs {sorted(sharded)}")
    for name in full:
        check(full[name] == sharded[name], f"{name}: scene.pov or particles.ply differs between the shards and the whole")
    indices = []
    for k in range(3):
        data = json.load(open(os.path.join(WORK, "sharded", f"batch.shard-{k}-of-3.json")))
        check(data["shard"] == {"index": k, "count": 3}, f"shard record {data['shard']}")
        indices += [x["index"] for x in data["runs"]]
        check(all(x["index"] % 3 == k and x["status"] == "ok" for x in data["runs"]), f"shard {k}: {data['runs']}")
    check(sorted(indices) == list(range(7)), f"shard indices {sorted(indices)}")
    check(not os.path.exists(os.path.join(WORK, "sharded", "batch.json")), "a shard writes its own batch file")


def mode_signal():
    cfg = os.path.join(WORK, "cfg")
    tiny(cfg)
    # Runs long enough to be interrupted: 8 runs of ~100,000 particles, two at a time.
    write(os.path.join(cfg, "b.json"), json.dumps({
        "set": {"particles.emitters.0.count": [[200, 2, 250]], "motion.steps": 4},
        "runs": [{"config": "tiny.json", "set": {"seed": list(range(1, 9))}}]}))
    for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        out = os.path.join(WORK, f"out{code}")
        p = subprocess.Popen([BIN, "batch", "cfg/b.json", "-o", out, "--jobs", "2", "--threads", "1"], cwd=WORK,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Wait (without a time limit of our own) until a run is under way: a child of the batch.
        children = f"/proc/{p.pid}/task/{p.pid}/children"
        while p.poll() is None:
            try:
                if open(children).read().strip():
                    break
            except OSError:
                pass
            time.sleep(0.01)
        p.send_signal(sig)
        stdout, stderr = p.communicate()
        check(p.returncode == code, f"{sig.name}: exit {p.returncode}, expected {code}\n{stderr}")
        s, data = statuses(os.path.join(out, "batch.json"))
        check(data["interrupted"] == sig.name, f"batch.json interrupted: {data['interrupted']}")
        check(len(s) == 8 and set(s.values()) <= {"ok", "interrupted", "not run"}, f"statuses {s}")
        check("not run" in s.values(), f"runs after the signal were not started: {s}")
        counts = data["counts"]
        check(sum(counts[k] for k in ("ok", "failed", "skipped", "interrupted", "not_run")) == 8, f"counts {counts}")
        for name, status in s.items():
            folder = os.path.join(out, name)
            check((status == "ok") == os.path.exists(os.path.join(folder, "summary.json")),
                f"{name}: {status}, summary.json {'present' if os.path.exists(folder) else 'absent'}")
        leftovers = [os.path.join(d, f) for d, _, files in os.walk(out) for f in files if ".tmp." in f]
        check(not leftovers, f"temporary files left: {leftovers}")


def mode_own():
    """The user's files in the batch's root are never replaced: a batch.json that blobsim did not write
    (here the batch file itself), reached by -o or by the batch file's "output" key, is refused before
    any run, with run's words; blobsim's own batch.json is replaced. Off a terminal, a line per
    finished run on stderr."""
    folder = os.path.join(WORK, "own")
    tiny(folder, "a.json")
    tiny(folder, "b.json", seed=2)
    mine = '{ "runs": ["a.json", "b.json"] }\n'
    write(os.path.join(folder, "batch.json"), mine)
    refusal = "batch.json: not a file blobsim wrote"
    for args in (["own/batch.json", "-o", "own"], ["own/a.json", "-o", "own"]):
        r = batch(*args, expect=1)
        check(refusal in r.stderr and "move the file away, blobsim does not replace it" in r.stderr,
              f"{args}: {r.stderr}")
        check(open(os.path.join(folder, "batch.json")).read() == mine, f"{args}: the user's batch.json changed")
        check(not os.path.exists(os.path.join(folder, "a")), f"{args}: a run ran before the refusal")
    write(os.path.join(WORK, "aim.json"), json.dumps({"output": "own", "runs": ["own/a.json"]}))
    r = batch("aim.json", expect=1)
    check(refusal in r.stderr, f"the batch file's output key: {r.stderr}")
    check(open(os.path.join(folder, "batch.json")).read() == mine, "output key: the user's batch.json changed")
    # A link planted at the name is not followed or replaced either.
    os.symlink(os.path.join(folder, "batch.json"), os.path.join(WORK, "linked-out-batch.json"))
    os.makedirs(os.path.join(WORK, "linked"))
    os.rename(os.path.join(WORK, "linked-out-batch.json"), os.path.join(WORK, "linked", "batch.json"))
    r = batch("own/a.json", "-o", "linked", expect=1)
    check("linked/batch.json: not a file blobsim wrote (a symbolic link)" in r.stderr, f"link: {r.stderr}")
    # blobsim's own batch.json is replaced; each finished run is a line on stderr (not a terminal).
    r = batch("own/batch.json", "-o", "out")
    lines = [x for x in r.stderr.splitlines() if x.startswith("batch: ") and " finished: ok " in x]
    check(len(lines) == 2 and lines[-1].startswith("batch: 2/2 finished: ok "), f"progress lines: {r.stderr}")
    batch("own/batch.json", "-o", "out", "--force")
    r = batch("own/batch.json", "-o", "out", "--quiet")
    check(r.stderr == "", f"--quiet printed: {r.stderr}")


modes = {"expand": mode_expand, "uptodate": mode_uptodate, "failure": mode_failure, "shard": mode_shard,
    "signal": mode_signal, "own": mode_own}
if MODE not in modes:
    fail("unknown mode " + MODE)
modes[MODE]()
shutil.rmtree(WORK, ignore_errors=True)
print("ok: " + MODE)
