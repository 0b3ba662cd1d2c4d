#!/usr/bin/env python3
"""Runs the bad-input catalogue (tests/bad_input/*.cases) against blobsim.

    tests/bad_input_test.py BLOBSIM TESTS_DIR [--print] [NAME ...]

Every case runs in a fresh temporary directory holding copies of tests/run/tiny.json and tiny.obj
plus the files the case makes, with that directory as the working directory. The test compares the
exit status and stderr exactly (the temporary directory's path reads as $TMP), and checks that
blobsim did not crash (status >= 128 or a signal) and that a failed run changed nothing on disk: no
file or directory appeared, disappeared or changed, and no temporary file (*.tmp.*) is left.
--print shows what blobsim says instead of comparing (to write a new case). NAME runs some cases only.

Case format (see tests/bad_input/README.md): blocks separated by blank lines, one `key: value` per line.
    case: NAME                       required, unique
    file: PATH = TEXT                a file; TEXT takes Python escapes (\\n, \\t, \\xNN for raw bytes)
    gen: PATH = EXPRESSION           a file from a Python expression (str or bytes); tiny_json,
                                     tiny_obj, garbage(n, seed), ply(...) and dng(...) are available
    dir: PATH                        a directory
    exec: PATH                       make PATH executable
    setup: SHELL COMMAND             run with bash in the case directory before the snapshot;
                                     $BLOBSIM is the executable
    env: NAME=VALUE                  an environment variable for blobsim ($TMP expands)
    args: ARGUMENTS                  blobsim's arguments, split like a shell (shlex)
    exit: N                          the exact exit status
    stderr: LINE                     the exact stderr (repeat the key for several lines)
    stderr~: TEXT                    or: stderr must contain TEXT (for machine-dependent messages)
    allow: PATH                      a path a failed run may create or change (e.g. out/render.log)
"""
import codecs
import hashlib
import os
import random
import shlex
import shutil
import stat
import struct
import subprocess
import sys
import tempfile


def garbage(n, seed):
    """n fixed pseudo-random bytes."""
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(n))


def ply(count, records=None, fmt="binary_little_endian", magic="ply"):
    """A PLY header for count vertices of float x y z, and records * 12 bytes of body (default count)."""
    head = f"{magic}\nformat {fmt} 1.0\nelement vertex {count}\nproperty float x\nproperty float y\n" \
        "property float z\nend_header\n"
    n = count if records is None else records
    body = b"".join(struct.pack("<3f", 0.1 * i, 1.5, 0.0) for i in range(n))
    return head.encode() + body


def dng(n=(2, 2, 2), version=1, header=128, method=0, band=3, radius=3, rounds=4, flags=0, compression=0,
        reserved=0, cell=0.5, origin=(0.0, 0.0, 0.0), cells=None, payload=None, stored=None, crc=None,
        header_crc=None, extra=b"", cut=None):
    """A distance/normal grid file (io/dng.h), written independently of blobsim: n cells of distance 1
    and normal +z unless cells (a list of (d, nx, ny, nz)) or payload (the stored bytes) is given; the
    checksums are right unless crc / header_crc are given; extra is appended, cut truncates."""
    import zlib
    count = n[0] * n[1] * n[2]
    raw = b"" if payload is not None and cells is None else \
        b"".join(struct.pack("<4f", *c) for c in (cells or [(1.0, 0.0, 0.0, 1.0)] * count))
    body = payload if payload is not None else (zlib.compress(raw) if compression == 1 else raw)
    h = bytearray(128)
    h[0:8] = b"\x89DNG\r\n\x1a\n"
    struct.pack_into("<11I", h, 8, version, header, n[0], n[1], n[2], method, band, radius, rounds, flags,
                     compression)
    struct.pack_into("<I4dQQI", h, 52, reserved, cell, *origin, 0x1234, len(body) if stored is None else stored,
                     zlib.crc32(raw) if crc is None else crc)
    struct.pack_into("<I", h, 124, zlib.crc32(bytes(h[:124])) if header_crc is None else header_crc)
    data = bytes(h) + body + extra
    return data if cut is None else data[:cut]


def parse_catalogue(paths):
    cases = []
    for path in paths:
        block = []
        lines = open(path, encoding="utf-8").read().split("\n")
        for number, line in enumerate(lines + [""], 1):
            if line.startswith("#"):
                continue
            if line.strip() == "":
                if block:
                    cases.append(make_case(path, block))
                    block = []
                continue
            key, sep, value = line.partition(": ")
            if not sep and line.endswith(":"):
                key, sep, value = line[:-1], ":", ""
            if not sep:
                sys.exit(f"{path}:{number}: expected 'key: value', got {line!r}")
            block.append((number, key, value))
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"duplicate case names: {sorted(dup)}")
    return cases


def make_case(path, block):
    case = {"where": f"{path}:{block[0][0]}", "files": [], "setup": [], "env": {}, "stderr": [],
            "contains": None, "exit": None, "args": None, "allow": set()}
    for number, key, value in block:
        where = f"{path}:{number}"
        if key == "case":
            case["name"] = value
        elif key in ("file", "gen"):
            name, sep, text = value.partition(" = ")
            if not sep:
                name, text = value.rstrip(" ="), ""
            case["files"].append((key, name, text, where))
        elif key == "dir":
            case["files"].append(("dir", value, None, where))
        elif key == "exec":
            case["files"].append(("exec", value, None, where))
        elif key == "setup":
            case["setup"].append(value)
        elif key == "env":
            k, _, v = value.partition("=")
            case["env"][k] = v
        elif key == "args":
            case["args"] = shlex.split(value)
        elif key == "exit":
            case["exit"] = int(value)
        elif key == "stderr":
            case["stderr"].append(value)
        elif key == "allow":
            case["allow"].add(value)
        elif key == "stderr~":
            case["contains"] = value
        else:
            sys.exit(f"{where}: unknown key {key!r}")
    for k in ("name", "args", "exit"):
        if case.get(k) is None:
            sys.exit(f"{case['where']}: the case has no '{k}'")
    if not case["stderr"] and case["contains"] is None:
        sys.exit(f"{case['where']}: the case has no 'stderr' or 'stderr~'")
    return case


def snapshot(root):
    """Every path under root with its kind and, for files, a hash of the content."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            p = os.path.join(dirpath, d)
            seen[os.path.relpath(p, root)] = "dir"
        for f in filenames:
            p = os.path.join(dirpath, f)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode):
                seen[os.path.relpath(p, root)] = hashlib.sha1(open(p, "rb").read()).hexdigest()
            else:
                seen[os.path.relpath(p, root)] = "other"
    return seen


def run_case(blobsim, tests, case, tiny_json, tiny_obj, show):
    work = tempfile.mkdtemp(prefix="bad-input-")
    try:
        shutil.copy(os.path.join(tests, "run", "tiny.json"), work)
        shutil.copy(os.path.join(tests, "run", "tiny.obj"), work)
        names = {"tiny_json": tiny_json, "tiny_obj": tiny_obj, "garbage": garbage, "ply": ply, "dng": dng,
                 "struct": struct}
        for kind, name, text, where in case["files"]:
            target = os.path.join(work, name)
            if kind == "dir":
                os.makedirs(target, exist_ok=True)
                continue
            if kind == "exec":
                os.chmod(target, 0o755)
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if kind == "file":
                data = codecs.decode(text, "unicode_escape").encode("latin-1") if "\\" in text \
                    else text.encode("utf-8")
            else:
                data = eval(text, names)
                if isinstance(data, str):
                    data = data.encode("utf-8")
            with open(target, "wb") as f:
                f.write(data)
        env = dict(os.environ)
        env["BLOBSIM"] = blobsim
        env["TMP"] = work
        for command in case["setup"]:
            r = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True)
            if r.returncode != 0:
                return [f"setup {command!r} failed: {r.stderr.decode(errors='replace')}"]
        for k, v in case["env"].items():
            env[k] = v.replace("$TMP", work)
        before = snapshot(work)
        try:
            r = subprocess.run([blobsim] + case["args"], cwd=work, env=env, capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return ["timed out after 60 s"]
        err = r.stderr.decode("utf-8", errors="replace").replace(work, "$TMP")
        if err.endswith("\n"):
            err = err[:-1]
        if show:
            print(f"case: {case['name']}\n  exit: {r.returncode}")
            for line in err.split("\n"):
                print(f"  stderr: {line}")
            return []
        problems = []
        if r.returncode < 0 or r.returncode >= 128:
            problems.append(f"crashed: exit status {r.returncode}")
        if r.returncode != case["exit"]:
            problems.append(f"exit status {r.returncode}, expected {case['exit']}")
        if case["stderr"]:
            want = "\n".join(case["stderr"])
            if err != want:
                problems.append(f"stderr:\n      got:      {err!r}\n      expected: {want!r}")
        elif case["contains"] not in err:
            problems.append(f"stderr {err!r} does not contain {case['contains']!r}")
        after = snapshot(work)
        temps = sorted(p for p in after if ".tmp." in os.path.basename(p))
        if temps:
            problems.append(f"temporary files left: {temps}")
        if r.returncode != 0:
            for p in case["allow"]:
                before.pop(p, None)
                after.pop(p, None)
            added = sorted(set(after) - set(before))
            removed = sorted(set(before) - set(after))
            changed = sorted(p for p in before if p in after and before[p] != after[p])
            if added:
                problems.append(f"a failed run left new paths: {added}")
            if removed:
                problems.append(f"a failed run removed paths: {removed}")
            if changed:
                problems.append(f"a failed run changed files: {changed}")
        return problems
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    args = sys.argv[1:]
    show = "--print" in args
    args = [a for a in args if a != "--print"]
    if len(args) < 2:
        sys.exit(__doc__)
    blobsim, tests, only = os.path.abspath(args[0]), os.path.abspath(args[1]), set(args[2:])
    catalogue = os.path.join(tests, "bad_input")
    files = sorted(os.path.join(catalogue, f) for f in os.listdir(catalogue) if f.endswith(".cases"))
    cases = parse_catalogue(files)
    tiny_json = open(os.path.join(tests, "run", "tiny.json"), encoding="utf-8").read()
    tiny_obj = open(os.path.join(tests, "run", "tiny.obj"), encoding="utf-8").read()
    failed = []
    counts = {}
    ran = 0
    for case in cases:
        if only and case["name"] not in only:
            continue
        ran += 1
        category = os.path.basename(case["where"].split(":")[0]).rsplit(".", 1)[0]
        counts[category] = counts.get(category, 0) + 1
        problems = run_case(blobsim, tests, case, tiny_json, tiny_obj, show)
        if problems:
            failed.append(case["name"])
            print(f"FAIL {case['name']} ({case['where']})")
            for p in problems:
                print(f"    {p}")
        elif not show:
            print(f"ok   {case['name']}")
    if only - {c["name"] for c in cases}:
        sys.exit(f"no such case: {sorted(only - {c['name'] for c in cases})}")
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"\n{ran} cases ({summary}): {ran - len(failed)} passed, {len(failed)} failed")
    if failed:
        print("failed: " + " ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
