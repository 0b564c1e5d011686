#!/usr/bin/env python3
"""Does DeepSpeed's pipeline schedule cost more than 1F1B? (README, megatron-deepspeed.)

DeepSpeed's TrainSchedule (deepspeed/runtime/pipe/schedule.py) runs 2 (m + p - 1) steps per
iteration; on stage s the forward of microbatch i falls on step 2 i + s and its backward on
step 2 i + 2 p - 1 - s (its _step_to_micro_batch parity rule, solved for the step), so
neighbouring stages run opposite kinds of pass in every step. At the start of each step a
stage exchanges with one neighbour by blocking send / recv (a forward step sends the previous
gradient to s - 1 and receives the activation from it; a backward step receives the gradient
from s + 1 and sends the previous activation to it): the step starts when the stage and that
neighbour have both finished their previous step. This times that rule for uniform stages
(t_F per forward, t_B per backward, no transfer time) and compares it with the 1F1B time
(m + p - 1) (t_F + t_B), and with a strict lockstep (every stage waiting for both
neighbours each step), which would cost more. Usage: ds_schedule.py (prints one line per case; exit 1 if any
differs).
"""
import sys


def deepspeed_time(m, p, tf, tb, both=False):
    """both: wait for both neighbours every step (a strict lockstep, for contrast)."""
    work = {}                      # (stage, step) -> (microbatch, is_forward)
    for s in range(p):
        for i in range(m):
            work[(s, 2 * i + s)] = (i, True)
            work[(s, 2 * i + 2 * p - 1 - s)] = (i, False)
    steps = 2 * (m + p - 1)
    end = {}
    for k in range(steps):
        for s in range(p):
            w = work.get((s, k))
            # a forward step talks to s - 1, a backward step to s + 1 (an idle step's kind
            # follows the parity: forward when k and s have the same parity)
            fwd = w[1] if w else (k - s) % 2 == 0
            q = s - 1 if fwd else s + 1
            start = end.get((s, k - 1), 0.0)
            for n in ((s - 1, s + 1) if both else (q,)):
                if 0 <= n < p and (both or w or work.get((s, k - 1))):
                    start = max(start, end.get((n, k - 1), 0.0))
            end[(s, k)] = start + ((tf if w[1] else tb) if w else 0.0)
    return max(end[(s, steps - 1)] for s in range(p))


def main():
    bad = 0
    for m, p, tf, tb in ((240, 35, 1.0, 3.0), (128, 12, 1.0, 3.0), (240, 35, 1.0, 2.0),
                         (8, 4, 1.0, 3.0), (4, 4, 1.0, 2.0)):
        ds = deepspeed_time(m, p, tf, tb)
        ref = (m + p - 1) * (tf + tb)
        lock = deepspeed_time(m, p, tf, tb, both=True)
        print(f"m {m:3d} p {p:2d} t_B/t_F {tb / tf:.0f}: DeepSpeed steps {ds:7.1f}, "
              f"1F1B {ref:7.1f}, ratio {ds / ref:.4f} (strict lockstep would be "
              f"{lock / ref:.3f})")
        bad += abs(ds / ref - 1) > 1e-12
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
