"""Writes the benchmark's TensorBoard log directory with tensorboardX (bench/import-tensorboard.ts
runs it once; the result is cached in .bench-cache/). Usage:
    PYTHONPATH=<tensorboardX checkout> python3 bench/make-tensorboard-events.py <logdir> <runs> <tags> <steps>
Each run is one directory with one event file of tags × steps scalars (simple_value, one event each).
"""

import math
import os
import sys

from tensorboardX import SummaryWriter

logdir, runs, tags, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for run in range(runs):
    w = SummaryWriter(logdir=os.path.join(logdir, f"run-{run}"), max_queue=10_000, flush_secs=10_000)
    file_writer = w._get_file_writer()
    for step in range(steps):
        for tag in range(tags):
            w.add_scalar(f"metric-{tag}", math.sin(step / 100 + tag), step, walltime=1_700_000_000 + step / 10)
    w.close()
