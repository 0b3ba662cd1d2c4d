#!/usr/bin/env python3
"""Every tests/test_NAME.c is a registered unit suite, and every registered suite is a file that
defines its function.

usage: unit_suites_test.py SOURCE_ROOT

tests/meson.build's unit_suites is the one list of the unit suites (docs/architecture.md, "Tests and
tools"); a file left out of it would not even be compiled, so nothing else would notice.
"""
import os
import re
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tests = os.path.join(sys.argv[1], "tests")
    with open(os.path.join(tests, "meson.build"), encoding="utf-8") as f:
        build = f.read()
    m = re.search(r"^unit_suites = \[\n(.*?)^\]", build, re.M | re.S)
    if m is None:
        print("FAIL: no unit_suites list in tests/meson.build", file=sys.stderr)
        return 1
    entries = re.findall(r"^  \['([\w-]+)', '([\w.]+)', '(\w+)', (\d+)\],$", m.group(1), re.M)
    lines = [l for l in m.group(1).splitlines() if l.strip() and not l.strip().startswith("#")]
    errors = []
    if len(entries) != len(lines):
        errors.append(f"{len(lines) - len(entries)} unit_suites lines are not "
                      "['name', 'file', 'Function', timeout],")
    listed = {e[1] for e in entries}
    for kind, values in (("name", [e[0] for e in entries]), ("file", [e[1] for e in entries]),
                         ("function", [e[2] for e in entries])):
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            errors.append(f"unit_suites names the {kind} {', '.join(twice)} twice")
    on_disk = {f for f in os.listdir(tests) if re.fullmatch(r"test_\w+\.c", f) and f != "test_main.c"}
    for f in sorted(on_disk - listed):
        errors.append(f"tests/{f} is not in tests/meson.build's unit_suites (add its line)")
    for name, file, function, _ in entries:
        path = os.path.join(tests, file)
        if not os.path.exists(path):
            errors.append(f"unit_suites' {name}: tests/{file} does not exist")
            continue
        with open(path, encoding="utf-8") as f:
            if re.search(r"^int " + function + r"\(void\)\n\{", f.read(), re.M) is None:
                errors.append(f"unit_suites' {name}: tests/{file} does not define int {function}(void)")
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    if not errors:
        print(f"{len(entries)} unit suites, each a file that defines its function, every test_*.c listed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
