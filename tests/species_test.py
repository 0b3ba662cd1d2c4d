"""Species end to end, read back without blobsim's code: tests/species/species.json, mud (granular,
poured at a rate) falling onto water (a grid at once, with a lifetime, an opacity ramp and its own look).
  - every cached particle's species is its emitter's, worked out here from the emitters' order;
  - each scene draws each species as blob objects of its own, with that species' look, and only the
    species with ramps have components coloured by them;
  - the same bytes at 1, 2 and 3 threads, and after a stop and a resume (the species in the checkpoint);
  - interactions: rules equal to the defaults change no byte; "interact": false between mud and water
    lets mud sink into water (pairs overlapping by half a radius), which the default keeps apart;
  - unknown species names, duplicate names and misplaced keys are refused naming the JSON path.
    /usr/bin/python3 tests/species_test.py BLOBSIM SOURCE_ROOT
"""
import glob
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cache_test import fail, read_ply  # noqa: E402
from instances_test import run  # noqa: E402
from over_life_test import refused, same_everywhere, same_files  # noqa: E402


def expected_species(config, count):
    """Each particle's species in id order: step after step, every species' emitters in config order (the
    world's emitters are the species' emitters, species after species), a rate emitter's
    floor(rate (t - start)) born by t, an at-once grid all in the step holding its start (0 here)."""
    dt = config["motion"]["dt"]
    emitters = [(k, e) for k, s in enumerate(config["particles"]) for e in s["emitters"]]
    born = [0] * len(emitters)
    species = []
    step = 0
    while len(species) < count:
        t1 = (step + 1) * dt
        for n, (k, e) in enumerate(emitters):
            if "rate" in e:
                total = int(e["rate"] * (min(t1, e["stop"]) - e.get("start", 0)) + 1e-9)
            else:
                total = e["count"][0] * e["count"][1] * e["count"][2]
            species += [k] * (total - born[n])
            born[n] = total
        step += 1
    return species[:count]


def check_species(out, config):
    frames = sorted(glob.glob(os.path.join(out, "cache", "frame_*.ply")))
    for path in frames:
        _, p, n = read_ply(path)
        want = expected_species(config, n)
        if list(p["species"]) != want:
            fail(f"{path}: species {list(p['species'])[:40]}..., expected {want[:40]}...")
        scene = open(os.path.join(out, os.path.basename(path).replace(".ply", ".pov"))).read()
        blobs = scene.split("\nblob\n{")[1:]
        alive = [want[i] for i in range(n) if p["state"][i] != 2]
        counts = [alive.count(k) for k in range(len(config["particles"]))]
        drawn = [b.count("\tsphere {") for b in blobs]
        if drawn != [c for c in counts if c > 0]:
            fail(f"{path}: blob objects of {drawn} components, the species have {counts} particles drawn")
        chunks = scene.split("\nblob\n{")
        for j, k in enumerate([k for k, c in enumerate(counts) if c > 0]):
            look = config["particles"][k]["look"]
            text = look["pigment"] if isinstance(look, dict) else {"mud": "color rgb <0.35, 0.25, 0.15>"}[look]
            colored = "over_life" in config["particles"][k]
            # With colours the look is declared just before the blob, its components each tinted; else it
            # is the blob's own texture.
            own = chunks[j + 1].split("\n}\n")[0]
            where = chunks[j] if colored else own
            if text not in where or colored != ("texture { BlobsimParticleTexture pigment" in own):
                fail(f"{path}: species {k}'s blob does not carry its look ({text}) or its colours")
    print(f"{len(frames)} frames: every particle's species is its emitter's; each species its own blob objects "
          "and look")


def deepest_overlap(out, config):
    """The deepest overlap between a mud and a water particle in the last cache, over the smaller radius."""
    path = sorted(glob.glob(os.path.join(out, "cache", "frame_*.ply")))[-1]
    _, p, n = read_ply(path)
    x = np.array([p["x"], p["y"], p["z"]]).T
    r = np.array(p["radius"])
    s = np.array(p["species"])
    alive = np.array(p["state"]) != 2
    mud = np.where((s == 0) & alive)[0]
    water = np.where((s == 1) & alive)[0]
    d = np.sqrt(np.sum((x[mud][:, None, :] - x[water][None, :, :]) ** 2, axis=2))
    depth = (r[mud][:, None] + r[water][None, :] - d) / np.minimum(r[mud][:, None], r[water][None, :])
    return float(depth.max())


def check_rules(blobsim, config_path, config, work, full):
    same = os.path.join(work, "same-rules")
    run(blobsim, config_path, same, 'interactions=[{"between":["mud","water"],"restitution":0.3,"friction":0.5}]',
        threads=2)
    same_files(full, same, "rules equal to the defaults")
    apart = deepest_overlap(full, config)
    through = os.path.join(work, "no-contact")
    run(blobsim, config_path, through, 'interactions=[{"between":["water","mud"],"interact":false}]', threads=2)
    sunk = deepest_overlap(through, config)
    if not (apart < 0.25 and sunk > 0.5):
        fail(f"mud and water overlap by {apart:.2f} radii interacting and {sunk:.2f} with \"interact\": false")
    print(f"interactions: default rules the same bytes; mud-water overlap {apart:.2f} radii interacting, "
          f"{sunk:.2f} with \"interact\": false")


def check_errors(blobsim, config_path, work):
    cases = [
        ('interactions=[{"between":["mud","watr"]}]',
         'interactions[0].between[1]: no species "watr" (did you mean "water"?)'),
        ('interactions=[{"between":["mud","sand"]}]', 'interactions[0].between[1]: no species "sand" (species: "mud", "water")'),
        ('interactions=[{"between":["mud"]}]', "interactions[0].between: expected 2 species' names"),
        ('interactions=[{"between":["mud","water"],"restitution":0}]',
         "interactions[0].restitution: expected a number > 0 and <= 1, got 0"),
        ("particles.1.name=mud", "particles[1].name: \"mud\" is particles[0]'s name already"),
        ("particles.1.interaction=granular", "particles[1].interaction: every species shares it: give it in particles[0]"),
        ("render.surface=mesh", "render.surface: draws one species, and particles has 2"),
        ("particles.1.radius=-1", "particles[1].radius: expected a number > 0, got -1"),
        ("particles.0.interaction=fluid", "interactions: rules between species need particles.interaction"),
    ]
    table = 'interactions=[{"between":["mud","water"]}]'
    refused(blobsim, config_path, work, [([o, table] if "fluid" in o else [o], m) for o, m in cases], "species settings")


def main():
    blobsim, source_root = sys.argv[1:3]
    config_path = os.path.join(source_root, "tests", "species", "species.json")
    config = json.load(open(config_path))
    with tempfile.TemporaryDirectory() as work:
        first = same_everywhere(blobsim, config_path, work, [], 3)
        check_species(first, config)
        check_rules(blobsim, config_path, config, work, first)
        check_errors(blobsim, config_path, work)


if __name__ == "__main__":
    main()
