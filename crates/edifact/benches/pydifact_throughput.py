"""pydifact's parse throughput on the files given, for benches/throughput.rs.

Prints one line per file: `<path>\t<bytes>\t<seconds>\t<segments>` where seconds is the
best of a few timed full parses (decode + tokenize + segment objects), so the figure is
comparable with the Rust side, which reports its best run too.
"""

import sys
import time
import warnings

from pydifact.parser import Parser

warnings.filterwarnings("ignore")

min_seconds = float(sys.argv[1])
for path in sys.argv[2:]:
    raw = open(path, "rb").read()
    best = None
    segments = 0
    spent = 0.0
    while spent < min_seconds or best is None:
        start = time.perf_counter()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        segments = sum(1 for _ in Parser().parse(text))
        took = time.perf_counter() - start
        spent += took
        best = took if best is None else min(best, took)
    print(f"{path}\t{len(raw)}\t{best}\t{segments}", flush=True)
