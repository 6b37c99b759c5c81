"""Prints the segments pydifact reads from each file given, as JSON, for the cross-check
in pydifact_crosscheck.rs. One JSON object per file, one per line:

    {"file": ..., "segments": [[tag, [[component, ...], ...]], ...]}  or
    {"file": ..., "error": "..."}

pydifact gives an element as a string (one component) or a list of strings; both are
normalised to a list of components here. Files are decoded as Latin-1 so that every byte
reaches pydifact unchanged (UTF-8 files are re-decoded as UTF-8 when they are valid).
Invoked with the venv's python: `python pydifact_segments.py FILE...`.
"""

import json
import sys
import warnings

from pydifact.parser import Parser

# pydifact warns once per service segment that it has no XML directory; irrelevant here.
warnings.filterwarnings("ignore")


def components(element):
    if isinstance(element, str):
        return [element]
    return [c if c is not None else "" for c in element]


def read(path):
    raw = open(path, "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    segments = []
    for segment in Parser().parse(text):
        segments.append([segment.tag, [components(e) for e in segment.elements]])
    return segments


for path in sys.argv[1:]:
    try:
        print(json.dumps({"file": path, "segments": read(path)}))
    except Exception as exc:  # any failure means "pydifact cannot read it"
        print(json.dumps({"file": path, "error": f"{type(exc).__name__}: {exc}"}))
