"""Shared by the validation experiments' fit.py scripts (validation-moe, validation-others,
validation-zero3): each fits one calibration constant per (software profile, device) on one
published row and writes it into configs/software/PROFILE.json.

  ROOT                       the repository
  load(path)                 a JSON file of the repository, keys in file order
  predict(trainsim, job, profile, device, constant, value)
                             tokens/s per GPU of `job` (a loaded job) on the profile with the
                             one calibration constant {device, constant: value}
  bisect(predicted, target, lo, hi, rising)
                             the value in [lo, hi] where predicted(value) meets target, by 40
                             halvings, rounded to 4 digits (predicted must be monotonic: rising
                             with the value when `rising`, falling otherwise)
  write_calibration(profile, note, constants)
                             the profile's "calibration" object {note, constants}, written in
                             place (indent 2, a final newline)

A fit.py imports it with sys.path.insert(0, os.path.dirname(HERE)). Standard library only;
deterministic (fixed bisection steps, no clock, no randomness).
"""
import collections
import json
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f, object_pairs_hook=collections.OrderedDict)


def predict(trainsim, job, profile, device, constant, value):
    sw = load("configs/software/%s.json" % profile)
    sw["calibration"] = {"note": "fit", "constants": [
        {"device": device, constant: value, "row": "fit"}]}
    job = dict(job, software=sw)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(job, f)
        name = f.name
    try:
        out = subprocess.run([trainsim, "run", name, "--format", "json"], check=True,
                             capture_output=True, text=True,
                             env=dict(os.environ, TRAINSIM_HOME=ROOT)).stdout
    finally:
        os.unlink(name)
    d = json.loads(out)
    return d["tokens_per_s"] / d["gpus"]


def bisect(predicted, target, lo, hi, rising):
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        p = predicted(mid)
        if (p < target) if rising else (p > target):
            lo = mid
        else:
            hi = mid
    return round(0.5 * (lo + hi), 4)


def write_calibration(profile, note, constants):
    path = "configs/software/%s.json" % profile
    sw = load(path)
    sw["calibration"] = collections.OrderedDict([("note", note), ("constants", constants)])
    with open(os.path.join(ROOT, path), "w") as f:
        json.dump(sw, f, indent=2, ensure_ascii=False)
        f.write("\n")
