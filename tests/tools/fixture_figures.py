#!/usr/bin/env python3
"""Prints, for a fixture, each kernel's static shared memory as ptxas and as tilefit see it.

A helper for writing fixtures: it shows the kernel names tilefit uses (for expected-smem) next to
ptxas's figures, per architecture. The fixture's FLAGS line is honoured. Run from the build tree:

    tests/tools/fixture_figures.py tests/fixtures/layout/padded_tiles.cu [--tilefit build/bin/tilefit]
"""
import argparse
import json
import re
import subprocess
import sys

ARCHS = ["sm_80", "sm_90", "sm_120"]


def fixture_flags(path):
    """The flags tilefit and nvcc get: FLAGS for both, TILEFIT-FLAGS and NVCC-FLAGS for one."""
    both, tilefit, nvcc = [], [], []
    for line in open(path):
        m = re.search(r"//\s*(FLAGS|TILEFIT-FLAGS|NVCC-FLAGS):\s*(.*)", line)
        if m:
            {"FLAGS": both, "TILEFIT-FLAGS": tilefit, "NVCC-FLAGS": nvcc}[m.group(1)].extend(
                m.group(2).split())
    return both + tilefit, both + nvcc, ARCHS


def ptxas(path, flags, archs):
    cmd = ["nvcc", "-c", path, "-o", "/dev/null", "-Xptxas", "-v"]
    for a in archs:
        cmd += ["-gencode", f"arch=compute_{a[3:]},code={a}"]
    out = subprocess.run(cmd + flags, capture_output=True, text=True)
    figures, name, arch = {}, None, None
    for line in (out.stdout + out.stderr).splitlines():
        m = re.search(r"Compiling entry function '([^']+)' for '(sm_\w+)'", line)
        if m:
            name, arch = m.groups()
        elif name and "Used" in line:
            m = re.search(r"(\d+) bytes smem", line)
            figures[(arch, name)] = int(m.group(1)) if m else 0
            name = None
    if out.returncode and not figures:
        sys.exit(out.stderr)
    return figures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fixture")
    ap.add_argument("--tilefit", default="build/bin/tilefit")
    args = ap.parse_args()
    flags, nvcc_flags, archs = fixture_flags(args.fixture)
    want = ptxas(args.fixture, nvcc_flags, archs)
    out = subprocess.run([args.tilefit, "--format=json", "--arch=" + ",".join(archs), args.fixture,
                          "--"] + flags, capture_output=True, text=True)
    report = json.loads(out.stdout)
    seen = set()
    for k in report["kernels"]:
        key = (k["arch"], k["mangled"])
        seen.add(key)
        p = want.get(key, "absent")
        mark = "" if p == k["static_smem_bytes"] else "   <-- DIFFERS"
        print(f"{k['arch']:7} {k['name']:40} tilefit {k['static_smem_bytes']!s:>7}  ptxas {p!s:>7}{mark}")
    for key, v in sorted(want.items()):
        if key not in seen:
            print(f"{key[0]:7} {key[1]:40} tilefit  absent  ptxas {v:>7}   <-- DIFFERS")
    for d in report["diagnostics"]:
        print(f"{d['file']}:{d['line']}: {d['severity']}: {d['message']} [{d['check']}]")


if __name__ == "__main__":
    main()
