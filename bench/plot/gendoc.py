# SPDX-License-Identifier: Apache-2.0
"""What bench/plot/summarize.py and bench/real/summarize.py share: the arguments
their run scripts give them, and the writing of their generated section of
docs/PERFORMANCE.md (between BEGIN and END markers; the rest is by hand)."""
import argparse
import os


def parser():
    """The arguments of both summarizers; each adds its own."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--reps", type=int, required=True)
    return ap


def update(path, begin, end, text, head=""):
    """Replaces what stands between begin and end in path (the markers
    included) with begin, text and end; appends them when the markers are
    not there, and starts a missing file with head."""
    section = f"{begin}\n{text}\n{end}\n"
    if os.path.exists(path):
        with open(path) as f:
            doc = f.read()
        if begin in doc and end in doc:
            doc = doc[:doc.index(begin)] + section + doc[doc.index(end) + len(end) + 1:]
        else:
            doc += "\n" + section
    else:
        doc = head + section
    with open(path, "w") as f:
        f.write(doc)
