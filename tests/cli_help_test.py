#!/usr/bin/env python3
"""The executable's own surface: what --version and the help texts print, not only their exit status.

usage: cli_help_test.py BLOBSIM MODE [ARG]
  version VERSION   `--version` prints "blobsim VERSION" (meson.project_version()), MAJOR.MINOR.PATCH
  help              `--help`: the usage lines, every command with a summary (each of which has its
                    own `help X`: usage line, `X --help` and `X -h` the same text), the options
  help-short        `-h` prints exactly what `--help` prints
  help-command      `help` prints exactly what `--help` prints
  help-cmd CMD      `help CMD` prints CMD's own usage and options, the same as `CMD --help` and `CMD -h`
  bench-options SRC `bench --help` names every option bench/bench.c (under the source root SRC) parses

Each check prints what it expected and what it got, and the script exits 1 on the first failure.
"""
import difflib
import os
import re
import subprocess
import sys

# The commands `blobsim --help` must list at least (a new one is checked without being named here).
COMMANDS = ["run", "render", "check", "batch", "grid", "bench", "compare", "regress", "help"]

# Options each command's help must name (a sample for most; bench-options checks bench's all).
OPTIONS = {
    "run": ["-o, --output", "--threads", "--set", "--render", "--jobs", "--movie", "--quiet",
            "--progress-lines", "--max-memory", "--resume", "--stop-after-frame"],
    "render": ["--frames", "--scene", "--jobs", "--threads", "--force", "--movie", "--quiet"],
    "check": ["--set"],
    "batch": ["-o, --output", "-j, --jobs", "--threads", "--force", "--render", "--shard",
              "--dry-run, --list", "--quiet"],
    "grid": ["-o, --output", "--cell", "--resolution", "--margin", "--band", "--exact-far", "--method",
             "--blur-radius", "--blur-rounds", "--compress", "--threads", "--quiet"],
    "bench": ["--tests", "--queries", "--runs", "--only", "--vs", "--csv", "--threads", "--seed"],
    "compare": ["--threshold", "--diff", "--json", "--min-psnr", "--min-ssim", "--max-diff", "--max-mae",
                "--max-fraction"],
    "regress": ["-o, --output", "--update", "--only", "--set", "--threads", "--quiet"],
}

BLOBSIM = ""


class Failure(Exception):
    pass


def ensure(cond, what):
    if not cond:
        raise Failure(what)


def run(*args):
    """Runs blobsim with ARGS: (stdout). Help and version must exit 0 and print nothing on stderr."""
    p = subprocess.run([BLOBSIM, *args], capture_output=True, text=True, timeout=60)
    shown = " ".join(["blobsim", *args])
    ensure(p.returncode == 0, f"{shown}: exit status {p.returncode}, expected 0\n{p.stderr}")
    ensure(p.stderr == "", f"{shown}: printed on stderr:\n{p.stderr}")
    ensure(p.stdout.endswith("\n"), f"{shown}: output does not end with a newline: {p.stdout!r}")
    return p.stdout


def same(a_args, b_args):
    a, b = run(*a_args), run(*b_args)
    a_name, b_name = "blobsim " + " ".join(a_args), "blobsim " + " ".join(b_args)
    diff = "".join(difflib.unified_diff(a.splitlines(True), b.splitlines(True), a_name, b_name))
    ensure(a == b, f"'{a_name}' and '{b_name}' differ:\n{diff}")
    return a


def has_option(text, option):
    """True when a line of TEXT starts (after its indent) with OPTION as a whole word."""
    return re.search(r"^\s+" + re.escape(option) + r"(?![\w-])", text, re.M) is not None


def section(text, title):
    """The lines of TEXT under 'TITLE:' up to the next blank line."""
    m = re.search(r"^" + re.escape(title) + r":\n((?:.+\n)*)", text, re.M)
    ensure(m is not None, f"no '{title}:' section in:\n{text}")
    return m.group(1).splitlines()


def check_version(version):
    out = run("--version")
    ensure(re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", version) is not None,
        f"meson's project version '{version}' is not MAJOR.MINOR.PATCH")
    ensure(out == f"blobsim {version}\n", f"--version printed {out!r}, expected 'blobsim {version}'")


def check_help():
    out = run("--help")
    lines = out.splitlines()
    ensure(lines[:2] == ["usage: blobsim <command> [options]", "       blobsim --help | --version"],
        f"--help's usage lines are {lines[:2]}")
    listed = []
    for line in section(out, "commands"):
        m = re.fullmatch(r"  ([a-z]+) +(\S.*)", line)
        ensure(m is not None, f"--help's command line '{line}' is not '  NAME  summary'")
        listed.append(m.group(1))
    for name in COMMANDS:
        ensure(name in listed, f"--help does not list the command '{name}' (it lists {listed})")
    ensure(len(set(listed)) == len(listed), f"--help lists a command twice: {listed}")
    options = "\n".join(section(out, "options")) + "\n"
    for option in ["-h, --help", "--version"]:
        ensure(has_option(options, option), f"--help's options do not name {option}")
    for name in listed:
        if name != "help":
            check_command_usage(name)
    # help is a command too: `blobsim help help` is the top-level help.
    ensure(run("help", "help") == out, "'blobsim help help' does not print what --help prints")


def check_command_usage(name):
    """`help NAME`, `NAME --help` and `NAME -h` print the same text, NAME's own usage."""
    out = same(["help", name], [name, "--help"])
    same([name, "-h"], [name, "--help"])
    first = out.splitlines()[0]
    ensure(first.startswith(f"usage: blobsim {name} "), f"'blobsim help {name}' starts with '{first}'")
    ensure(has_option(out, "-h, --help"), f"'blobsim help {name}' does not name -h, --help")
    return out


def check_command(name):
    out = check_command_usage(name)
    for option in OPTIONS[name]:
        ensure(has_option(out, option), f"'blobsim help {name}' does not name the option {option}")


def check_bench_options(source_root):
    path = os.path.join(source_root, "bench", "bench.c")
    with open(path, encoding="utf-8") as f:
        parsed = sorted(set(re.findall(r'"(--[a-z][a-z-]*)"', f.read())))
    ensure(len(parsed) >= 20, f"found only {len(parsed)} options in {path}: {parsed}")
    out = run("bench", "--help")
    missing = [o for o in parsed if o != "--help" and not has_option(out, o)]
    ensure(not missing, f"'blobsim bench --help' does not name {missing}, which {path} parses")


def main():
    global BLOBSIM
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    BLOBSIM, mode, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        if mode == "version" and len(rest) == 1:
            check_version(rest[0])
        elif mode == "help" and not rest:
            check_help()
        elif mode == "help-short" and not rest:
            same(["-h"], ["--help"])
        elif mode == "help-command" and not rest:
            same(["help"], ["--help"])
        elif mode == "help-cmd" and len(rest) == 1 and rest[0] in OPTIONS:
            check_command(rest[0])
        elif mode == "bench-options" and len(rest) == 1:
            check_bench_options(rest[0])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    print(" ".join([mode, *rest]) + ": ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
