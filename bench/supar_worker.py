"""Times SuPar's batched first-order TreeCRF (`supar.structs.DependencyCRF`) for bench/kernels.py.

Runs in SuPar's own virtual environment, as a long-lived worker so that bench/kernels.py can interleave its
measurements with ours: one JSON command per input line, one JSON answer per output line.

    {"scores": "path.npy", "what": "argmax" | "marginals", "repeats": 5}
        -> {"ms_per_sentence": [...], "heads": [[...], ...] (argmax: the last run's)}

The .npy holds scores (B, N, N) as scores[b, h, m]; SuPar takes [b, dependent, head], so they are transposed.
Single root, one torch thread, a fresh DependencyCRF each run (its properties are cached).
"""
import json
import sys
import time

import numpy as np
import torch
from supar.structs import DependencyCRF


def main():
    torch.set_num_threads(1)
    for line in sys.stdin:
        command = json.loads(line)
        scores = torch.from_numpy(np.load(command["scores"]).astype(np.float32)).transpose(1, 2).contiguous()
        batch, size = scores.shape[0], scores.shape[1]
        lens = torch.full((batch,), size - 1, dtype=torch.long)
        times, heads = [], None
        for _ in range(int(command.get("repeats", 5))):
            crf = DependencyCRF(scores.clone(), lens)
            start = time.perf_counter()
            result = crf.argmax if command["what"] == "argmax" else crf.marginals
            times.append((time.perf_counter() - start) / batch * 1e3)
            if command["what"] == "argmax":
                heads = result.tolist()
        answer = {"ms_per_sentence": times, "torch": torch.__version__, "threads": torch.get_num_threads()}
        if heads is not None:
            answer["heads"] = heads
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
