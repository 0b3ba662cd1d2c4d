#!/usr/bin/env python3
"""Every command of README.md and docs/*.md, run as written against this build (test docs-commands).

    tests/docs_test.py BLOBSIM SOURCE_ROOT BUILD_DIR [--list] [--only=DOC ...]

What counts as a command:
  - a line of a code block (indented, or fenced without a language or as sh/bash/shell) that starts
    with a program the docs use (blobsim, tools/..., meson, ninja, povray, ...); a line ending in a
    backslash goes on on the next; lines after a blank line that start otherwise are shown output;
  - a code block starting with "#!" is a script, run as a whole (its key is its first line after the
    "#!" line);
  - inline `blobsim COMMAND ARG ...` spans whose first argument is not an option, except `blobsim
    bench ...` (benchmarks: the cli-bench-* tests run each part small).
Templates are not run: a command with a placeholder (an upper-case word such as CONFIG, DIR, NAME,
N, A.png), optional arguments ("[-") or "...".

How: each document gets a fresh copy of the source tree (no build folder, no out/) in a temporary
folder, its commands run in order in that copy's root with bash -o pipefail (as typed: in
`a; echo $?` the echo shows a's status), `blobsim` on the PATH (a link to BLOBSIM, also as
build/release/blobsim), HOME a temporary folder, and "/tmp/" in a command read as a temporary folder
of the test (so that runs as different users do not share files). A command passes when it exits 0.

The few commands that are too long to run here (full renders, benchmarks, builds, cluster jobs) are
in SHORTER below, each with the shorter command that runs in its place (or None and why not); an
entry whose command is no longer in the docs is an error, so the list stays true. Skipped (exit 77)
when a program the docs use is missing: POV-Ray, ffmpeg, GNU parallel, ImageMagick. In a sanitizer
build (BLOBSIM_SANITIZE, the build's b_sanitize) the valgrind commands are not run.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

PROGRAMS = r"(blobsim|build/release/blobsim|tools/[\w/.-]+|meson|ninja|apt-get|cd|povray|parallel|sbatch|valgrind|callgrind_annotate|montage|/usr/bin/convert|export)"
COMMAND = re.compile(r"^(" + PROGRAMS + r"(\s|$)|\w+=\$\(|\w+=/)")  # or VAR=$(command ...), VAR=/path
OUTPUT = re.compile(r"^blobsim( \w+)?: ")  # "blobsim batch: b.json: ..." is a message, not a command
PLACEHOLDER = re.compile(r"(?<![\w$+-])[A-Z][A-Z0-9_]*(?=$|[\s./,\]|)-])")
INLINE = re.compile(r"`(blobsim (run|render|check|batch|grid|compare|regress) [^`-][^`]*)`")
SHELL_FENCES = ("", "sh", "bash", "shell")

# (document, command as written) -> the shorter command run instead, or (None, why it is not run).
# $BUILD is the build folder, $STAGE an empty temporary folder, $SCRIPT a script block's file.
SMALL = "--set render.width=80 --set render.height=60"
BUILT = (None, "the build this test runs in")
LETTERS = 'mkdir -p out/letters && "$BUILD/blobsim-letters" out/letters'  # what tools/letters/make runs, without building
# configs/snow-accumulate.json's granular snow (22,500 grains, minutes) with fewer grains and steps.
SNOW_SHORT = "--set particles.emitters.0.rate=1500 --set particles.emitters.0.stop=1 --set motion.steps=150"
BENCH_SMALL = "--vs-queries 200 --vs-resolution 20 --vs-rounds 1 --tests 2000 --queries 200 --particles 0"
ALL_CONFIGS = LETTERS + ' && for c in configs/*.json; do blobsim check "$c"; done'
SHORTER = {
    ("README.md", "tools/snow"): "blobsim run configs/snow.json --render " + SMALL,
    ("README.md", "tools/test"): (None, "the whole suite, which this test is part of"),
    ("README.md", "apt-get install -y gcc meson ninja-build pkg-config python3 libcjson-dev libpng-dev povray"):
        (None, "installs packages as root; tests/deps_test.sh tests tools/deps.sh, which prints this line"),
    ("README.md", "build/release/blobsim run out/teapot.json --render"):
        "build/release/blobsim run out/teapot.json --render " + SMALL + " --set motion.steps=3",
    ("README.md", "meson setup build/release --buildtype=release"): BUILT,
    ("README.md", "ninja -C build/release"): BUILT,
    ("README.md", "meson test -C build/release"): (None, "the suite this test is part of"),
    ("README.md", "meson install -C build/release"):
        'meson install -C "$BUILD" --no-rebuild --quiet --destdir "$STAGE" && '
        '"$(find "$STAGE" -name blobsim -type f)" --version',
    ("README.md", "meson configure build/release --prefix ~/.local"):
        (None, "it would change the build under test; meson install runs above, into a temporary folder"),
    ("docs/batch.md", "#SBATCH --job-name=snow-radius"):  # one task of the array, here
        'SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 SLURM_CPUS_PER_TASK=1 '
        'bash <(sed "s|^cd /shared/blobsim\\$|cd $PWD|" "$SCRIPT")',
    ("docs/batch.md", "parallel --will-cite -S node1,node2 --workdir /shared/blobsim blobsim batch "
     "docs/batch/snow-radius.json --quiet --shard {}/3 ::: 0 1 2"):
        (None, "needs the ssh hosts node1 and node2; the next command is the same on this machine"),
    ("docs/bodies.md", "tools/letters/make out/letters"): LETTERS,
    ("docs/bodies.md", "blobsim run configs/letters-T.json --render    # or letters-MV, letters-W"):
        "blobsim run configs/letters-T.json --render " + SMALL + " --set output.frame_every=24",
    ("docs/bodies.md", "blobsim run configs/ball-snow.json --render --set render.width=480 --set render.height=360"):
        "blobsim run configs/ball-snow.json --render " + SMALL + " --set output.frame_every=125",
    # The motion-blurred fall: 4 steps at 80x60 (its `blobsim render --scene` then renders 8 small samples).
    ("docs/figures.md", 'blobsim run configs/slime-pour.json -o out/slime-fall --set motion.steps=30 --set output.frame_every=2 --set \'render.motion_blur={"shutter_angle": 180, "samples": 8}\' --set \'render.camera.location=[0.2,0.95,-1.5]\' --set \'render.camera.look_at=[0,0.8,0]\' --set render.camera.angle=45'):
        'blobsim run configs/slime-pour.json -o out/slime-fall --set motion.steps=30 --set output.frame_every=2 --set \'render.motion_blur={"shutter_angle": 180, "samples": 8}\' --set \'render.camera.location=[0.2,0.95,-1.5]\' --set \'render.camera.look_at=[0,0.8,0]\' --set render.camera.angle=45' + " --set motion.steps=4 " + SMALL,
    # The blurred paddle: the same run, its scene rendered small by the next command.
    ("docs/figures.md", 'blobsim run configs/species-sand-slime.json -o out/paddle-blur --set motion.steps=50 --set output.frame_every=2 --set \'environment.bodies=[{"file": "../scenes/crate.obj", "material": "metal", "loop": true, "keys": [{"time": 0, "translate": [0, 0.16, 0], "scale": [2, 0.3, 0.5], "rotate": {"axis": [0, 0, 1], "angle": 0}}, {"time": 0.25, "rotate": {"axis": [0, 0, 1], "angle": -90}}, {"time": 0.5, "rotate": {"axis": [0, 0, 1], "angle": -180}}, {"time": 0.75, "rotate": {"axis": [0, 0, 1], "angle": -270}}, {"time": 1, "rotate": {"axis": [0, 0, 1], "angle": -360}}]}]\' --set \'render.motion_blur={"shutter_angle": 180, "samples": 8}\' --set render.width=640 --set render.height=480'):
        'blobsim run configs/species-sand-slime.json -o out/paddle-blur --set motion.steps=50 --set output.frame_every=2 --set \'environment.bodies=[{"file": "../scenes/crate.obj", "material": "metal", "loop": true, "keys": [{"time": 0, "translate": [0, 0.16, 0], "scale": [2, 0.3, 0.5], "rotate": {"axis": [0, 0, 1], "angle": 0}}, {"time": 0.25, "rotate": {"axis": [0, 0, 1], "angle": -90}}, {"time": 0.5, "rotate": {"axis": [0, 0, 1], "angle": -180}}, {"time": 0.75, "rotate": {"axis": [0, 0, 1], "angle": -270}}, {"time": 1, "rotate": {"axis": [0, 0, 1], "angle": -360}}]}]\' --set \'render.motion_blur={"shutter_angle": 180, "samples": 8}\' --set render.width=640 --set render.height=480' + " " + SMALL,
    ("docs/figures.md", "blobsim run configs/room.json --render        # -> out/room/scene.png"):
        "blobsim run configs/room.json --render " + SMALL,
    ("docs/figures.md", "blobsim batch configs/room.json configs/room-ray.json configs/room-empty.json "
     "configs/slime.json configs/snow.json --render -o out/figures"):
        "blobsim batch configs/room.json configs/room-ray.json configs/room-empty.json configs/slime.json "
        "configs/snow.json -o out/figures",
    ("docs/figures.md", "blobsim batch configs --render --jobs 1"): ALL_CONFIGS,
    ("docs/figures.md", "blobsim run configs/senin-fig2.json --render --threads 1"):
        "blobsim run configs/senin-fig2.json --render " + SMALL + " --set output.frame_every=24",
    ("docs/figures.md", "blobsim run configs/bend-snow.json --render"):
        "blobsim run configs/bend-snow.json --render " + SMALL + " --set motion.steps=10",
    ("docs/figures.md", "blobsim run configs/snow-fence.json --render"):
        "blobsim run configs/snow-fence.json --render " + SMALL + " --set motion.steps=10",
    ("docs/figures.md", "blobsim run configs/mud-slope.json --set output.frame_every=40"):
        "blobsim run configs/mud-slope.json --set output.frame_every=2 --set motion.steps=4",
    ("docs/figures.md", "blobsim run configs/ball-sand.json --render"):
        "blobsim run configs/ball-sand.json --render " + SMALL + " --set motion.steps=10",
    ("docs/figures.md", "blobsim run configs/crate-water.json --render"):
        "blobsim run configs/crate-water.json --render " + SMALL + " --set motion.steps=4",
    ("docs/figures.md", "blobsim run configs/species-sand-slime.json --render"):
        "blobsim run configs/species-sand-slime.json --render " + SMALL + " --set motion.steps=10",
    ("docs/dngrid.md", "blobsim run configs/field-explosion.json --movie --set render.width=320 "
     "--set render.height=240 --set output.frame_every=20"):
        "blobsim run configs/field-explosion.json --movie " + SMALL + " --set output.frame_every=20",
    ("docs/dngrid.md", "blobsim run configs/field-explosion.json -o out/field-explosion-above --render "
     "--set render.width=320 --set render.height=240 --set output.frame_every=20 "
     "--set 'render.camera.location=[-3.5, 6, 3.5]'"):
        "blobsim run configs/field-explosion.json -o out/field-explosion-above --render " + SMALL +
        " --set output.frame_every=20 --set 'render.camera.location=[-3.5, 6, 3.5]'",
    ("docs/figures.md", "blobsim run configs/field-explosion-gas.json --render"):
        "blobsim run configs/field-explosion-gas.json --render " + SMALL + " --set motion.steps=30",
    ("docs/performance.md", "blobsim batch configs --render --jobs 1"): ALL_CONFIGS,
    ("docs/rendering.md", 'blobsim run configs/slime-fluid-pour.json --threads 2 --set \'render.motion_blur={"shutter_angle": 180, "samples": 8}\''):
        'blobsim run configs/slime-fluid-pour.json --threads 2 --set \'render.motion_blur={"shutter_angle": 180, "samples": 8}\' --set motion.steps=3',
    ("docs/rendering.md", "blobsim run configs/snow.json --render"):
        "blobsim run configs/snow.json --render " + SMALL,
    ("docs/rendering.md", "blobsim run configs/snow-accumulate.json --set output.frame_every=10 --render"):
        "blobsim run configs/snow-accumulate.json --set output.frame_every=40 --render " + SMALL + " " + SNOW_SHORT,
    ("docs/rendering.md", "build/release/blobsim run configs/snow-accumulate.json -o /shared/out/snow-accumulate "
     "--set output.frame_every=2   # no --render; 164 frames"):
        "blobsim run configs/snow-accumulate.json -o out/snow-accumulate --set output.frame_every=40 " + SMALL + " " + SNOW_SHORT,
    ("docs/rendering.md", "#SBATCH --job-name=blobsim-frames"):  # one task of an array counted from 1, here
        'SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4 '
        'bash <(sed "s|^blobsim=.*|blobsim=$BUILD/blobsim|; s|^dir=.*|dir=out/snow-accumulate|" "$SCRIPT")',
    ("docs/rendering.md", "blobsim=/shared/blobsim/build/release/blobsim   # the script's two paths"):
        (None, "the paths of a shared file system; the script above runs with this build and folder"),
    ("docs/rendering.md", "dir=/shared/out/snow-accumulate"):
        (None, "the paths of a shared file system; the script above runs with this build and folder"),
    ("docs/rendering.md", "job=$(sbatch --parsable render-frames.sbatch)"):
        (None, "submits to a Slurm cluster; one task of the script runs above, the whole array in tests/slurm_test.sh"),
    ("docs/rendering.md", 'sbatch --dependency=afterany:$job --exclusive --wrap "$blobsim render $dir --movie"'):
        (None, "submits to a Slurm cluster; the same blobsim render --movie runs below"),
    ("docs/rendering.md", "blobsim run configs/snow-accumulate.json --set output.frame_every=2 --movie"):
        "blobsim run configs/snow-accumulate.json --set output.frame_every=40 --movie " + SMALL + " " + SNOW_SHORT,
    ("docs/performance-history.md", "blobsim bench --only embree --threads 1 --vs-sets mixed,near,radius3x,snow,slime "
     "--vs-methods embree-sweep,exact,karabassi"):
        "blobsim bench --only embree --threads 1 --vs-sets mixed,near,radius3x,snow,slime "
        "--vs-methods embree-sweep,exact,karabassi " + BENCH_SMALL,
    ("docs/performance.md", "valgrind --tool=callgrind --toggle-collect=bsVsTimedPass --callgrind-out-file=cg.exact "
     "blobsim bench --only embree --threads 1 --vs-rounds 1 --vs-sets near --vs-methods exact --vs-queries 5000"):
        "valgrind --tool=callgrind --toggle-collect=bsVsTimedPass --callgrind-out-file=cg.exact "
        "blobsim bench --only embree --threads 1 --vs-rounds 1 --vs-sets near --vs-methods exact " + BENCH_SMALL,
    ("docs/performance.md", "blobsim run configs/dam-break.json"):
        "blobsim run configs/dam-break.json --set motion.steps=1",
    ("docs/regress.md", "blobsim regress tests/regress                  # run the shipped suite -> out/regress/report.html"):
        "blobsim regress tests/regress --only tiny-slide",
    ("docs/regress.md", "blobsim regress tests/regress --update         # bless: the new images become the references"):
        "blobsim regress tests/regress --update --only tiny-slide",
    ("docs/regress.md", "blobsim regress tests/regress --only fig10-snow --set particles.radius=0.03   # would this change show?"):
        "blobsim regress tests/regress --only fig10-snow --set particles.radius=0.03; [ $? -eq 1 ]  # it shows: exit 1",
    ("docs/regress.md", "blobsim regress tests/regress            # see what changed"):
        "blobsim regress tests/regress --only tiny-slide",
    ("docs/regress.md", "blobsim regress tests/regress --update   # then bless, and commit tests/regress/ref/"):
        "blobsim regress tests/regress --update --only tiny-slide",
    ("docs/validation.md", "tools/validate"):
        (None, "the whole validation; the validation-harness test runs its quick cases"),
    ("docs/performance.md", 'tools/bench_figures --runs 1 --only "room room-empty slime snow snow-accumulate sand-pile slime-pour ball-snow"'):
        'tools/bench_figures --dry-run --blobsim build/release/blobsim --runs 1 --only "room room-empty slime snow snow-accumulate sand-pile slime-pour ball-snow"',
    ("docs/performance.md", 'tools/bench_figures --runs 1 --only "dam-break snow-vortex bend-snow ball-sand mud-slope slime-fluid-pour sand-pile-rolling snow-roofs"'):
        'tools/bench_figures --dry-run --blobsim build/release/blobsim --runs 1 --only "dam-break snow-vortex bend-snow ball-sand mud-slope slime-fluid-pour sand-pile-rolling snow-roofs"',
    ("docs/performance.md", 'tools/bench_figures --runs 1 --only "field-bouncy field-slippery field-drag field-explosion field-flow field-flow-top field-shaft-12-3 field-shaft-3-6 field-shaft-3-m3"'):
        'tools/bench_figures --dry-run --blobsim build/release/blobsim --runs 1 --only "field-bouncy field-slippery field-drag field-explosion field-flow field-flow-top field-shaft-12-3 field-shaft-3-6 field-shaft-3-m3"',
    ("docs/performance.md", 'tools/bench_figures --runs 3 --only "room room-empty snow sand-pile ball-snow dam-break bend-snow"'):
        'tools/bench_figures --dry-run --blobsim build/release/blobsim --runs 3 --only "room room-empty snow sand-pile ball-snow dam-break bend-snow"',
    ("docs/performance.md", 'tools/bench_figures --runs 3 --only "slime slime-pour snow-accumulate"'):
        'tools/bench_figures --dry-run --blobsim build/release/blobsim --runs 3 --only "slime slime-pour snow-accumulate"',
    ("docs/performance.md", "tools/bench liggghts --repeat 3 --work out/liggghts"):
        (None, "installs LIGGGHTS as root and runs 20 minutes; the liggghts-compare test runs it small"),
    ("docs/validation.md", "tools/liggghts/compare --problems pile20k --steps 10000 --repeat 1 --threads 1 --work out/liggghts-settled"):
        (None, "needs LIGGGHTS and runs minutes; the liggghts-compare test runs it small"),
    ("docs/validation.md", "tools/liggghts/compare --problems pile20k --steps 10000 --repeat 1 --threads 1 --rotation "
     "--rolling-model cdt --rolling-friction 0.1 --work out/liggghts-settled-cdt"):
        (None, "needs LIGGGHTS and runs minutes; the liggghts-compare test runs it small"),
    ("docs/validation.md", "tools/liggghts/rolling --work out/liggghts-rolling"):
        (None, "needs LIGGGHTS; it is the liggghts-rolling test"),
    ("docs/validation.md", "tools/liggghts/compare --problems pile20k --scale 0.25 --steps 30000 --repeat 1 --threads 1 "
     "--rotation --rolling-model cdt --rolling-friction 0.1 --work out/liggghts-rest-cdt"):
        (None, "needs LIGGGHTS and runs minutes; the liggghts-compare test runs it small"),
    ("docs/validation.md", "tools/liggghts/compare --problems pile20k --scale 0.25 --steps 10000 --repeat 1 --threads 1 "
     "--rotation --rolling-model epsd2 --rolling-friction 0.3 --work out/liggghts-epsd2-03"):
        (None, "needs LIGGGHTS and runs minutes; the liggghts-compare test runs it small"),
    ("docs/validation.md", "tools/liggghts/compare --problems pile20k --scale 0.25 --steps 10000 --repeat 1 --threads 1 "
     "--law hertz --work out/liggghts-hertz"):
        (None, "needs LIGGGHTS and runs minutes; the liggghts-compare test runs it small"),
    ("docs/performance.md", "tools/liggghts/compare --problems pile20k,chute5k,pile200k,block1m --threads 1 --repeat 3"):
        (None, "needs LIGGGHTS and runs about 20 minutes; the liggghts-compare test runs it small"),
    ("docs/performance.md", "tools/liggghts/compare --problems pile200k,pile20k --threads 1 --repeat 1 --work out/liggghts"):
        (None, "needs LIGGGHTS and runs minutes; the liggghts-compare test runs it small"),
    ("docs/performance.md", "tools/liggghts/compare --check"):
        (None, "needs LIGGGHTS; it is the liggghts-compare test"),
}
# The validation's runs (docs/validation.md, written by tools/validate with the commands it ran), one
# step each: any `blobsim run tools/validation/...` there (shorter_of).
VALIDATION_RUN = re.compile(r"blobsim run tools/validation/[\w-]+\.json ")


# Commands that need ../shared beside the repository (the real models): not run without it.
NEEDS_SHARED = {("README.md", "build/release/blobsim init ../shared/models/teapot.obj --material sand -o out/teapot.json"),
                ("README.md", "build/release/blobsim run out/teapot.json --render")}
HAVE_SHARED = True  # set by main()


def shorter_of(doc, command):
    """The SHORTER entry of a command, or a validation run's one-step form, or None."""
    if (doc, command) in NEEDS_SHARED and not HAVE_SHARED:
        return (None, "../shared/models is not beside the repository")
    if (doc, command) in SHORTER:
        return SHORTER[(doc, command)]
    after_out = command.split(" -o ", 1)[-1].split(" ", 1)[-1]  # what follows the output folder
    if doc == "docs/validation.md" and VALIDATION_RUN.match(command) and "out/validation/" in after_out:
        return (None, "reads a file tools/validate writes first (the slump's cylinder); validation-harness runs the case")
    if doc == "docs/validation.md" and VALIDATION_RUN.match(command):
        return command + " --set motion.steps=1"  # the last --set wins
    return None


def blocks(text):
    """(line number, kind, lines) of each code block; kind is the fence's language or "indent"."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((i + 2, line[3:].strip(), lines[i + 1:j]))
            i = j + 1
        elif line.startswith("    ") and (i == 0 or lines[i - 1].strip() == ""):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or lines[j].strip() == ""):
                j += 1
            body = [x[4:] for x in lines[i:j]]
            while body and not body[-1].strip():
                body.pop()
            out.append((i + 1, "indent", body))
            i = j
        else:
            i += 1
    return out


def is_template(command):
    command = re.sub(r"\s+#\s.*$", "", command)  # a comment is not part of it
    return (" [-" in command or " | --" in command or "..." in command or
            PLACEHOLDER.search(command) is not None)


def inline_command(command):
    """An inline `blobsim ...` span is a command when it has a real argument (`blobsim grid build|info`
    and `blobsim grid build` are names of commands)."""
    words = command.split()[2:]
    if command.split()[1] == "grid":
        words = words[1:] if words and words[0] in ("build", "info") else []
    return bool(words) and not words[0].startswith("-") and "|" not in words[0]


def commands(path, text):
    """(line, command, kind) of each command of a document, in order; kind: run, template or script."""
    found = []
    for first, kind, body in blocks(text):
        if kind not in SHELL_FENCES and kind != "indent":
            continue
        if body and body[0].startswith("#!"):
            key = next((x for x in body[1:] if x.strip()), "")
            found.append((first, key, "script", "\n".join(body)))
            continue
        k = 0
        while k < len(body):
            line = body[k]
            start = first + k
            if not line.strip():
                k += 1
                continue
            if not COMMAND.match(line) or OUTPUT.match(line):
                if k == 0:
                    break  # a block of output or formulas
                k += 1
                continue
            full = line
            while full.endswith("\\") and k + 1 < len(body):
                k += 1
                full = full[:-1].rstrip() + " " + body[k].strip()
            found.append((start, full, "template" if is_template(full) else "run", None))
            k += 1
    for n, line in enumerate(text.split("\n"), 1):
        for m in INLINE.finditer(line):
            command = m.group(1)
            if not inline_command(command):
                continue
            found.append((n, command, "template" if is_template(command) else "run", None))
    return found


def copy_tree(source, dest):
    skip = shutil.ignore_patterns(".git", "build", "out", "__pycache__")
    shutil.copytree(source, dest, ignore=skip, symlinks=True)


def main():
    only = [a[len("--only="):] for a in sys.argv[1:] if a.startswith("--only=")]
    args = [a for a in sys.argv[1:] if a != "--list" and not a.startswith("--only=")]
    if len(args) != 3:
        sys.exit(__doc__)
    blobsim, source, build = (os.path.abspath(a) for a in args)
    global HAVE_SHARED
    HAVE_SHARED = os.path.isdir(os.path.join(source, "..", "shared", "models"))
    only_list = "--list" in sys.argv
    docs = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(source, "docs"))
                                  if f.endswith(".md"))
    plan = [(doc, commands(doc, open(os.path.join(source, doc), encoding="utf-8").read())) for doc in docs]
    if only_list:
        for doc, cmds in plan:
            for line, command, kind, _ in cmds:
                print(f"{doc}:{line}: {kind:8} {command}")
        return 0
    # BLOBSIM_SANITIZE: the build's b_sanitize option (tests/meson.build passes it).
    sanitized = os.environ.get("BLOBSIM_SANITIZE", "none") not in ("", "none")
    missing = [p for p in ("povray", "ffmpeg", "parallel", "convert", "montage") if shutil.which(p) is None]
    if missing:
        print(f"SKIP: the docs use {', '.join(missing)}, not installed")
        return 77

    used = set()
    failures, ran, shortened, templates = [], 0, 0, 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="blobsim-docs-") as work:
        bindir = os.path.join(work, "bin")
        os.mkdir(bindir)
        os.symlink(blobsim, os.path.join(bindir, "blobsim"))
        home = os.path.join(work, "home")
        os.mkdir(home)
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), HOME=home,
                   BUILD=build, LC_ALL="C.UTF-8")
        for doc, cmds in plan:
            if only and doc not in only:
                used.update(k for k in SHORTER if k[0] == doc)
                continue
            if not any(kind in ("run", "script") for _, _, kind, _ in cmds):
                templates += len(cmds)
                continue
            tree = os.path.join(work, "tree-" + doc.replace("/", "-"))
            copy_tree(source, tree)
            # ../shared beside the tree, as beside the repository (the real models of README's first
            # render of your own model)
            shared = os.path.join(source, "..", "shared")
            if os.path.isdir(shared) and not os.path.exists(os.path.join(work, "shared")):
                os.symlink(os.path.abspath(shared), os.path.join(work, "shared"))
            os.makedirs(os.path.join(tree, "build", "release"))
            os.symlink(blobsim, os.path.join(tree, "build", "release", "blobsim"))
            tmp = os.path.join(work, "tmp-" + doc.replace("/", "-"))
            os.mkdir(tmp)
            for line, command, kind, script in cmds:
                if kind == "template":
                    templates += 1
                    continue
                key = (doc, command)
                run = command if kind == "run" else script
                if sanitized and re.match(r"(valgrind|callgrind_annotate)\b", command):
                    used.add(key)
                    print(f"{doc}:{line}: not run (valgrind cannot run a sanitizer build): {command}")
                    continue
                short = shorter_of(doc, command)
                if short is not None:
                    used.add(key)
                    run = short
                    if isinstance(run, tuple):
                        print(f"{doc}:{line}: not run ({run[1]}): {command}")
                        continue
                    shortened += 1
                    print(f"{doc}:{line}: run shorter: {run}")
                elif kind == "script":
                    failures.append(f"{doc}:{line}: a script (key {command!r}) not in SHORTER: say how to run it")
                    continue
                else:
                    print(f"{doc}:{line}: {command}")
                run = run.replace("/tmp/", tmp + "/")
                stage = tempfile.mkdtemp(dir=work, prefix="stage-")
                script_file = os.path.join(stage, "script")
                with open(script_file, "w") as f:
                    f.write(script or "")
                t = time.monotonic()
                try:
                    r = subprocess.run(["bash", "-o", "pipefail", "-c", run], cwd=tree,
                                       env=dict(env, STAGE=stage, SCRIPT=script_file), stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, timeout=300)
                    status, output = r.returncode, r.stdout
                except subprocess.TimeoutExpired as e:
                    status, output = "timeout (300 s)", e.stdout or b""
                ran += 1
                if status != 0:
                    tail = "\n".join(output.decode(errors="replace").splitlines()[-8:])
                    failures.append(f"{doc}:{line}: exit {status}: {run}\n    " + tail.replace("\n", "\n    "))
                    print(f"    FAILED (exit {status})")
                elif time.monotonic() - t > 5:
                    print(f"    {time.monotonic() - t:.1f} s")
            shutil.rmtree(tree)
    for key in SHORTER:
        if key not in used:
            failures.append(f"SHORTER has {key[0]}: {key[1]!r}, which is not a command of that document any more")
    print(f"{ran} commands run ({shortened} in a shorter form), {templates} templates, "
          f"{time.monotonic() - start:.0f} s")
    if ran < 40 and not only:
        failures.append(f"only {ran} commands found: is the extraction broken?")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
