#!/usr/bin/env python3
"""The engine's subsystems see only those below them: the public headers' half of the rule.

Each engine subsystem (src/NAME/) is compiled with its own folder and those of the subsystems below
it only, so a wrong-way include of a private header does not compile. The public headers
(include/blobsim/) are visible to every subsystem, so this test checks them: a subsystem's files, and
the public headers themselves, include only public headers owned by the same subsystem or one below
it. The order comes from the build itself (the table `engine_subsystems` in src/meson.build), and a
header's owner is the subsystem whose folder holds the .c of the same name, or the table below for
the headers with no .c. The umbrella, blobsim.h, includes every public header, so no subsystem owns it
and no subsystem's file may include it (a subsystem that did would see every other).

    tests/layers_test.py SOURCE_ROOT
"""
import os
import re
import sys

# Public headers with no .c of their own: the subsystem they belong to.
HEADER_ONLY = {
    "vec3.h": "core",
    "quat.h": "core",
    "base.h": "core",
    "rng.h": "core",
    "version.h": "core",
    "collide.h": "collide",
}

# The umbrella header: a program's, not a subsystem's.
UMBRELLA = "blobsim.h"

INCLUDE = re.compile(r'^\s*#\s*include\s+"blobsim/([^"]+)"', re.M)


def subsystems(src):
    """{name: set of the subsystems it depends on, directly}, from src/meson.build's table"""
    text = open(os.path.join(src, "meson.build")).read()
    table = re.search(r"engine_subsystems = \[(.*?)\n\]", text, re.S)
    deps = {}
    for name, below_ in re.findall(r"\['(\w+)', \[([^\]]*)\]\]", table.group(1) if table else ""):
        deps[name] = set(re.findall(r"'(\w+)'", below_))
    return deps


def below(deps, name, seen=None):
    """name and every subsystem it depends on, transitively"""
    seen = set() if seen is None else seen
    if name in seen:
        return seen
    seen.add(name)
    for d in deps.get(name, ()):
        if d in deps:
            below(deps, d, seen)
    return seen


def owners(root, deps):
    src = os.path.join(root, "src")
    owner = {}
    for name in deps:
        for f in os.listdir(os.path.join(src, name)):
            if f.endswith(".c"):
                owner[f[:-2] + ".h"] = name
    # A force class's file (src/step/force_radial.c) owns its settings' header (radial.h) when no
    # file of that name does (field.h is src/field/field.c's, not force_field.c's).
    for name in deps:
        for f in os.listdir(os.path.join(src, name)):
            if f.startswith("force_") and f.endswith(".c"):
                owner.setdefault(f[6:-2] + ".h", name)
    result = {}
    for h in os.listdir(os.path.join(root, "include", "blobsim")):
        if h.endswith(".h") and h != UMBRELLA:
            result[h] = HEADER_ONLY.get(h) or owner.get(h)
    result.setdefault("version.h", "core")
    return result


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    deps = subsystems(os.path.join(root, "src"))
    if len(deps) < 2:
        print(f"FAIL: no subsystems found under {root}/src")
        return 1
    own = owners(root, deps)
    errors = []
    for h, o in sorted(own.items()):
        if o is None:
            errors.append(f"include/blobsim/{h}: no subsystem owns it (no src/*/{h[:-2]}.c; "
                          "add it to HEADER_ONLY in tests/layers_test.py)")
    checks = []  # (path, subsystem whose rule applies)
    for name in deps:
        folder = os.path.join(root, "src", name)
        for f in sorted(os.listdir(folder)):
            if f.endswith((".c", ".h")):
                checks.append((os.path.join("src", name, f), name))
    for h, o in own.items():
        if o and os.path.isfile(os.path.join(root, "include", "blobsim", h)):
            checks.append((os.path.join("include", "blobsim", h), o))
    for path, name in checks:
        allowed = below(deps, name)
        for inc in INCLUDE.findall(open(os.path.join(root, path)).read()):
            if inc == UMBRELLA:
                errors.append(f"{path}: includes blobsim/{UMBRELLA}, every public header at once "
                              "(include the ones it needs)")
                continue
            o = own.get(inc)
            if o is not None and o not in allowed:
                errors.append(f"{path}: includes blobsim/{inc}, which belongs to src/{o}/, "
                              f"above src/{name}/ (it sees {', '.join(sorted(allowed))})")
    for e in errors:
        print("FAIL:", e)
    order = sorted(deps, key=lambda n: len(below(deps, n)))
    print(f"{len(checks)} files of {len(deps)} subsystems checked ({' < '.join(order)}): "
          f"{len(errors)} wrong-way includes")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
