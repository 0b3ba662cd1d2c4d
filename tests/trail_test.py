"""Trail emitters end to end, read back without blobsim's code: tests/trail/trail.json, embers thrown up by
a nozzle, each leaving sparks (a trail of species "sparks" from source "embers") that fade and die.
  - sparks appear once embers fly, and grow in number (the exact counts, positions and velocities are
    the unit suite's, tests/test_trail.c);
  - the same bytes at 1, 2 and 3 threads, and after a stop and a resume (the sources' counts in the
    checkpoint's 'TRAL' section);
  - an unknown source, the trail's own species, a missing rate and keys a trail has not are refused
    naming the JSON path;
  - embers landing: no spark below the floor (a spark born after its ember's bounce within a step
    starts clear of the floor, not on the ember's free path under it);
  - the sparks as a splash ("on": "contact"): none until the first ember lands, then some, all above
    the floor, the same bytes at 1, 2 and 3 threads and after a resume; a bad "on", a count < 1, a
    rate or no count with "on": "contact", and a splash's key without it refused naming the JSON path.
    /usr/bin/python3 tests/trail_test.py BLOBSIM SOURCE_ROOT
"""
import glob
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cache_test import fail, read_ply  # noqa: E402
from over_life_test import refused, same_everywhere  # noqa: E402


def check_sparks(out):
    """Sparks appear once embers fly, and more with every frame while they do (two embers' worth or
    more by the end: each ember emits 60 a second)."""
    counts = []
    for path in sorted(glob.glob(os.path.join(out, "cache", "frame_*.ply"))):
        _, p, n = read_ply(path)
        species = list(p["species"]) if n > 0 else []
        counts.append((species.count(0), species.count(1)))
    if not counts or counts[-1][1] == 0:
        fail(f"no sparks: (embers, sparks) per frame {counts}")
    if any(b[1] < a[1] for a, b in zip(counts, counts[1:])):
        fail(f"the particle count of sparks fell: {counts}")
    print(f"(embers, sparks) per cached frame: {counts}")


def check_landing(out):
    """Embers landing within a step: the sparks born after an ember's bounce (its free path through the
    step runs on below the floor) start clear of the floor, none below it in any frame."""
    for path in sorted(glob.glob(os.path.join(out, "cache", "frame_*.ply"))):
        _, p, n = read_ply(path)
        below = [y for y, s in zip(p["y"], p["species"]) if s == 1 and y < 0.0] if n > 0 else []
        if below:
            fail(f"{path}: {len(below)} sparks below the floor (lowest {min(below)})")
    print("landing: no spark below the floor in any frame")


def check_errors(blobsim, config_path, work):
    at = "particles[1].emitters[0]"
    cases = [
        ("particles.1.emitters.0.source=embrs", f'{at}.source: no species "embrs" (did you mean "embers"?)'),
        ("particles.1.emitters.0.source=water", f'{at}.source: no species "water" (species: "embers", "sparks")'),
        ("particles.1.emitters.0.source=sparks", f"{at}.source: \"sparks\" is the trail's own species"),
        ('particles.1.emitters=[{"type":"trail","source":"embers"}]', f"{at}: missing required key 'rate'"),
        ('particles.1.emitters=[{"type":"trail","rate":5}]', f"{at}: missing required key 'source'"),
        ("particles.1.emitters.0.offset=-1", f"{at}.offset: expected a number >= 0, got -1"),
        ('particles.1.emitters.0.motion={"translate":[1,0,0]}', f"{at}.motion"),
    ]
    refused(blobsim, config_path, work, [([o], m) for o, m in cases], "trail settings")


SPLASH = ('particles.1.emitters=[{"type": "trail", "source": "embers", "on": "contact", "count": 3, '
          '"count_per_speed": 0.5, "cone_angle": 40, "speed": [0.5, 1.5], "inherit": 0.4}]')


def check_splash(out):
    """No sparks while the embers fly up; sparks once they land, every one above the floor."""
    counts = []
    for path in sorted(glob.glob(os.path.join(out, "cache", "frame_*.ply"))):
        _, p, n = read_ply(path)
        species = list(p["species"]) if n > 0 else []
        sparks = [y for y, s in zip(p["y"], species) if s == 1] if n > 0 else []
        if any(y < 0.0 for y in sparks):
            fail(f"{path}: a splash's spark below the floor: {min(sparks)}")
        counts.append(len(sparks))
    if not counts or counts[0] != 0 or counts[len(counts) // 4] != 0 or counts[-1] == 0:
        fail(f"splash: sparks per cached frame {counts}: none expected before the first landing, some after")
    print(f"splash: sparks per cached frame {counts}")


def check_splash_errors(blobsim, config_path, work):
    at = "particles[1].emitters[0]"
    splash = '{"type":"trail","source":"embers","on":"contact"'
    cases = [
        ('particles.1.emitters.0.on="sometimes"', f'{at}.on: expected one of "always", "contact", got "sometimes"'),
        (f"particles.1.emitters=[{splash},\"count\":0}}]", f"{at}.count: expected a number >= 1, got 0"),
        (f"particles.1.emitters=[{splash},\"count\":2,\"rate\":5}}]", f"{at}.rate: a trail on contact"),
        (f"particles.1.emitters=[{splash}}}]", f"{at}: missing required key 'count'"),
        ("particles.1.emitters.0.cone_angle=10", f"{at}.cone_angle: only a trail on contact"),
    ]
    refused(blobsim, config_path, work, [([o], m) for o, m in cases], "splash settings")


def main():
    blobsim, source_root = sys.argv[1:3]
    config_path = os.path.join(source_root, "tests", "trail", "trail.json")
    with tempfile.TemporaryDirectory() as work:
        first = same_everywhere(blobsim, config_path, work, [], 7)
        check_sparks(first)
        check_errors(blobsim, config_path, work)
    with tempfile.TemporaryDirectory() as work:
        check_landing(same_everywhere(blobsim, config_path, work, ["motion.steps=36"], 9))
    with tempfile.TemporaryDirectory() as work:
        check_splash(same_everywhere(blobsim, config_path, work, [SPLASH, "motion.steps=36"], 9))
        check_splash_errors(blobsim, config_path, work)


if __name__ == "__main__":
    main()
