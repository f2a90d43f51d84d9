#!/usr/bin/env python3
"""Body slicing on CUTLASS and CuTe (issue 28): one run, every tool on the same machine.

For each unit: Clang's own parse (the device-side -fsyntax-only command tilefit runs, from
--show-parse-commands), tilefit cold (--no-cache -j 1) with and without body slicing, tilefit
after an edit of the unit's own file (its precompiled headers and prefix kept, the result cache
unable to answer) with and without, and `nvcc -c`. Medians of --reps runs; the machine is shared,
so read the ratios, not the seconds.

    bench/slicing.py --cutlass DIR [--reps N] [--tilefit build/bin/tilefit]
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(argv, cwd=None, env=None):
    t = time.monotonic()
    r = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return time.monotonic() - t, r


def median(f, reps):
    return statistics.median(f() for _ in range(reps))


def units(cutlass):
    cute = ["-std=c++17", "--expt-relaxed-constexpr", "-DCUTLASS_ENABLE_TENSOR_CORE_MMA=1",
            "-I" + os.path.join(cutlass, "include"),
            "-I" + os.path.join(cutlass, "tools", "util", "include"),
            "-I" + os.path.join(cutlass, "examples", "common")]
    tut = os.path.join(cutlass, "examples", "cute", "tutorial")
    ex48 = os.path.join(cutlass, "examples", "48_hopper_warp_specialized_gemm",
                        "48_hopper_warp_specialized_gemm.cu")
    return [
        ("CuTe sgemm_sm80.cu", os.path.join(tut, "sgemm_sm80.cu"), "sm_80", cute),
        ("CuTe hopper/wgmma_sm90.cu", os.path.join(tut, "hopper", "wgmma_sm90.cu"), "sm_90a", cute),
        ("CuTe hopper/wgmma_tma_sm90.cu", os.path.join(tut, "hopper", "wgmma_tma_sm90.cu"),
         "sm_90a", cute),
        ("CUTLASS example 48", ex48, "sm_90a", cute),
        ("bench heavy_cub.cu", os.path.join(ROOT, "bench", "inputs", "heavy_cub.cu"), "sm_90",
         ["-std=c++17"]),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cutlass", default=os.environ.get("TILEFIT_CUTLASS_DIR", ""))
    ap.add_argument("--tilefit", default=os.path.join(ROOT, "build", "bin", "tilefit"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--lsp-only", action="store_true",
                    help="only the language server's edits of wgmma_sm90.cu")
    args = ap.parse_args()
    if not args.cutlass or not os.path.isdir(os.path.join(args.cutlass, "include", "cute")):
        sys.exit("--cutlass DIR (a CUTLASS checkout) is needed")
    rows = []
    for label, src, arch, flags in ([] if args.lsp_only else units(args.cutlass)):
        if not os.path.exists(src):
            print("skipped (not in the checkout):", src, file=sys.stderr)
            continue
        work = tempfile.mkdtemp(prefix="tilefit-slicing-")
        # A copy beside the original, so that its includes resolve the same and an edit
        # touches only the copy.
        copy = os.path.join(os.path.dirname(src), ".tilefit-bench-" + os.path.basename(src))
        shutil.copyfile(src, copy)
        try:
            tf = [args.tilefit, "--arch=" + arch, "-j", "1", "--quiet", copy, "--"] + flags
            show = subprocess.run(tf[:1] + ["--no-cache", "--show-parse-commands"] + tf[1:],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            clang = shlex.split(show.stderr.splitlines()[0]) + ["-fsyntax-only"]
            clang[0] = "clang++-19"
            row = {"unit": label}
            row["clang"] = median(lambda: timed(clang)[0], args.reps)
            for mode, extra in (("sliced", []), ("whole", ["--no-body-slicing"])):
                argv = tf[:1] + extra + tf[1:]
                row["cold_" + mode] = median(lambda: timed(argv[:1] + ["--no-cache"] + argv[1:])[0],
                                             args.reps)
                cache = os.path.join(work, "cache-" + mode)
                warm = argv[:1] + ["--cache-dir=" + cache] + argv[1:]
                # Builds the precompiled headers and prefix, and the body slicer's record of
                # the prefix's declarations (made by the first parse that loads it).
                timed(warm)

                def edited():
                    with open(copy, "a") as f:
                        f.write("\n// edit %f\n" % time.monotonic())
                    return timed(warm)[0]
                row["edit_" + mode] = median(edited, args.reps)
            nvcc = ["nvcc", "-c", "-gencode", "arch=compute_%s,code=sm_%s" % (arch[3:], arch[3:]),
                    "-o", os.path.join(work, "x.o"), copy] + flags
            row["nvcc"] = median(lambda: timed(nvcc)[0], 1)
            rows.append(row)
            print(row, file=sys.stderr)
        finally:
            os.unlink(copy)
            shutil.rmtree(work, ignore_errors=True)

    # The language server: an edit of wgmma_sm90.cu, from didChange to its diagnostics.
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from lsp_timing import time_session
    label, src, arch, flags = units(args.cutlass)[1]
    lsp = None
    if os.path.exists(src):
        folder = os.path.dirname(src)
        copy = os.path.join(folder, ".tilefit-bench-lsp.cu")
        db = os.path.join(folder, "compile_commands.json")
        shutil.copyfile(src, copy)
        with open(db, "w") as f:
            f.write(json.dumps([{"directory": folder, "file": copy, "arguments":
                                 ["nvcc", "-arch=" + arch, "-c", copy] + flags}]))
        try:
            lsp = {kind: time_session(args.tilefit, [], copy, folder, 5, edit=kind)
                   for kind in ("comment", "code")}
        finally:
            os.unlink(copy)
            os.unlink(db)

    print("| unit | Clang's parse | tilefit cold, whole / sliced | after an edit, whole / sliced "
          "| nvcc -c | nvcc / tilefit after an edit (sliced) | sliced edit / Clang's parse "
          "| sliced cold / Clang's parse |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %.1f s | %.1f / %.1f s | %.1f / %.1f s | %.1f s | %.1f | %.2f | %.2f |" % (
            r["unit"], r["clang"], r["cold_whole"], r["cold_sliced"], r["edit_whole"],
            r["edit_sliced"], r["nvcc"], r["nvcc"] / r["edit_sliced"],
            r["edit_sliced"] / r["clang"], r["cold_sliced"] / r["clang"]))
    for kind, what in (("comment", "a comment appended (no line of code changed)"),
                       ("code", "a host function appended (parsed again)")):
        if lsp:
            m = lsp[kind]
            print("\nLanguage server, %s: opened in %.1f s; an edit, %s: median %.2f s "
                  "(%.2f-%.2f s)" % (label, m["open_s"], what, m["median_edit_s"],
                                     m["min_edit_s"], m["max_edit_s"]))


if __name__ == "__main__":
    main()
