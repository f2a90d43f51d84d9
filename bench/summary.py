"""The summary of a benchmark run (OUT/summary.md; see bench/README.md).

render(R) turns bench.py's results (what OUT/results.json holds) into the Markdown tables
bench/README.md shows, one function per table, and adds the ratios it computes to the
results (each comparison's "ratios", each language-server file's "ratio_preamble_over_cold").
Also here: the formatting helpers (fmt_t, fmt_rss, fmt_r, ratio, cpu, geomean, mark) and the
targets the run is reported against.

Standard library only.
"""
import math
import statistics

# Targets from the project's issue (reported against, not enforced).
TARGET_PARSE_RATIO = 1.10
TARGET_PARSE_RATIO_PCH = 0.5
TARGET_NVCC_RATIO = 8.0
TARGET_J2_SPEEDUP = 1.8
TARGET_RSS_RATIO = 1.2


# -- formatting ---------------------------------------------------------------------------------

def fmt_t(m):
    """median (min-max) in s or ms."""
    if m is None:
        return "—"
    med, lo, hi = m["median_s"], m["min_s"], m["max_s"]
    if med < 10:
        s = "%.0f ms" % (med * 1000) if med < 1 else "%.2f s" % med
        if m["runs"] > 1:
            s += " (%s–%s)" % (("%.0f" % (lo * 1000), "%.0f" % (hi * 1000)) if hi < 1
                               else ("%.2f" % lo, "%.2f" % hi))
    else:
        s = "%.1f s" % med
        if m["runs"] > 1:
            s += " (%.1f–%.1f)" % (lo, hi)
    return s + ("" if not m.get("failed") else " FAILED")


def fmt_rss(m):
    if m is None or not m.get("peak_rss_kb"):
        return "—"
    return "%.0f" % (m["peak_rss_kb"] / 1024)


def ratio(a, b):
    if a is None or b is None or not b:
        return None
    return a / b


def cpu(m):
    """user + system CPU time of a measurement (hyperfine's mean), in s."""
    return None if m is None else m["user_s"] + m["system_s"]


def fmt_r(x, nd=2):
    return "—" if x is None else ("%." + str(nd) + "f") % x


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def mark(ok):
    return "yes" if ok else "**no**"


def archs_short(archs):
    """"80,89,90" for ["sm_80", "sm_89", "sm_90"]."""
    return ",".join(a[3:] for a in archs)


# -- the report ---------------------------------------------------------------------------------

def render(R):
    """The summary of the results `R`, as Markdown; adds the ratios to `R`."""
    L = []
    header(L, R)
    comps = [c for c in R.get("comparisons", []) if not c.get("sweep")]
    g = time_table(L, comps)
    rss_table(L, comps, g)
    pch = pch_table(L, comps)
    sp = jobs_table(L, R["jobs"])
    scale_units_table(L, R["scale_units"])
    instantiations_table(L, R["scale_instantiations"])
    host_parse_table(L, R["host_parse"])
    warm_cache_table(L, R.get("warm_cache"))
    lsp_table(L, R.get("lsp"))
    targets_table(L, R, comps, g, pch, sp)
    noise(L, R["measurements"])
    return "\n".join(L)


def header(L, R):
    M = R["machine"]
    V = R["versions"]
    L.append("## Run of %s (%s mode)" % (M["date"], R["mode"]))
    L.append("")
    waited = sum(m.get("waited_for_quiet_s") or 0 for m in R["measurements"].values())
    L.append("Machine: `nproc` = %d, %s, %s GiB. tilefit `%s` (%s, file dated %s, sha256 %s…; "
             "the repository was at %s%s); %s; nvcc %s; %s. Whole run: %.1f min%s."
             % (M["nproc"], M["cpu"], M["memory_gib"], V["tilefit_binary"], V["tilefit"],
                V.get("tilefit_mtime", "?"), V.get("tilefit_sha256", "?"), V["git_head"],
                "" if V.get("tilefit_result_cache") is None else
                (", result cache off (`--no-cache`) but in the warm-cache table"
                 if V["tilefit_result_cache"] else ", no result cache in this build"),
                V["clang"], V["nvcc"], V["hyperfine"], R["elapsed_s"] / 60,
                " (of which %.1f min waiting for other processes to finish, `--wait-quiet`)"
                % (waited / 60) if waited >= 1 else ""))
    L.append("")
    L.append("Times are hyperfine medians over the runs shown (min–max in brackets); ratios "
             "marked CPU divide user+system CPU time (hyperfine's means) instead, which other "
             "processes on the machine disturb less. RSS is the median peak resident set of the "
             "timed runs (GNU time `%M`), in MiB. tilefit runs with `-j 1`, the Clang parses and "
             "nvcc one after the other, so every ratio compares one core with one core.")
    L.append("")


def time_table(L, comps):
    """tilefit against Clang's parse and nvcc, times; sets each comparison's "ratios".
    Returns the geometric means of the rows (g1: tilefit / clang, g2a, g2b: nvcc / tilefit
    for one and several architectures, g3: RSS tilefit / clang, gc*: the same in CPU time)."""
    L.append("### tilefit against Clang's parse and nvcc: time")
    L.append("")
    L.append("| input | archs | units | runs | tilefit | clang parse | nvcc | **tilefit / clang** | "
             "**nvcc / tilefit** | tilefit / clang, CPU | nvcc / tilefit, CPU | host parse |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    pr, nr, rr, pc, nc = [], [], [], [], []
    for c in comps:
        tf, cl, nv = c["tilefit"], c["clang"], c.get("nvcc")
        r1 = ratio(tf["median_s"], cl["median_s"])
        r2 = ratio(nv["median_s"], tf["median_s"]) if nv else None
        r3 = ratio(tf["peak_rss_kb"], cl["peak_rss_kb"])
        c1 = ratio(cpu(tf), cpu(cl))
        c2 = ratio(cpu(nv), cpu(tf)) if nv else None
        c["ratios"] = {"tilefit_over_clang": r1, "nvcc_over_tilefit": r2,
                       "rss_tilefit_over_clang": r3, "cpu_tilefit_over_clang": c1,
                       "cpu_nvcc_over_tilefit": c2}
        pr.append(r1)
        rr.append(r3)
        pc.append(c1)
        if r2 is not None:
            nr.append((r2, len(c["archs"])))
            nc.append((c2, len(c["archs"])))
        L.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["label"], archs_short(c["archs"]), c["units"], tf["runs"], fmt_t(tf),
            fmt_t(cl), fmt_t(nv), fmt_r(r1), fmt_r(r2, 1), fmt_r(c1), fmt_r(c2, 1),
            "yes (not in the Clang column)" if c["host_parse"] else "no"))
    g = {"g1": geomean(pr), "g3": geomean(rr), "gc1": geomean(pc),
         "g2a": geomean([r for r, n in nr if n == 1]),
         "g2b": geomean([r for r, n in nr if n > 1]),
         "gc2a": geomean([r for r, n in nc if n == 1]),
         "gc2b": geomean([r for r, n in nc if n > 1])}
    L.append("| **overall** (geometric mean of the rows) | | | | | | | **%s** | **%s** (1 arch), **%s** (3) | %s | %s (1 arch), %s (3) | |"
             % (fmt_r(g["g1"]), fmt_r(g["g2a"], 1), fmt_r(g["g2b"], 1), fmt_r(g["gc1"]),
                fmt_r(g["gc2a"], 1), fmt_r(g["gc2b"], 1)))
    L.append("")
    return g


def rss_table(L, comps, g):
    L.append("### tilefit against Clang's parse and nvcc: peak memory (MiB)")
    L.append("")
    L.append("| input | archs | tilefit | clang parse | nvcc | **tilefit / clang** |")
    L.append("|---|---|---:|---:|---:|---:|")
    for c in comps:
        L.append("| %s | %s | %s | %s | %s | %s |" % (
            c["label"], archs_short(c["archs"]), fmt_rss(c["tilefit"]),
            fmt_rss(c["clang"]), fmt_rss(c.get("nvcc")), fmt_r(c["ratios"]["rss_tilefit_over_clang"])))
    L.append("| **overall** (geometric mean) | | | | | **%s** |" % fmt_r(g["g3"]))
    L.append("")


def pch_table(L, comps):
    """The comparisons with the precompiled CUDA runtime headers (none without a cache);
    adds the pch_* ratios. Returns {"rows", "pp": tilefit / clang of every row, "pn", "pnc":
    nvcc / tilefit (time, CPU) of the one-architecture rows}."""
    pch = {"rows": [c for c in comps if c.get("tilefit_pch")], "pp": [], "pn": [], "pnc": []}
    if not pch["rows"]:
        return pch
    L.append("### With the precompiled CUDA runtime headers (`--cache-dir`, parse results "
             "removed before every run)")
    L.append("")
    L.append("| input | archs | units | tilefit, no cache | tilefit, precompiled headers | clang parse | nvcc | "
             "**tilefit / clang** | **nvcc / tilefit** | tilefit / clang, CPU | nvcc / tilefit, CPU | RSS (MiB) | RSS / clang |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in pch["rows"]:
        tp, cl, nv = c["tilefit_pch"], c["clang"], c.get("nvcc")
        r1 = ratio(tp["median_s"], cl["median_s"])
        r2 = ratio(nv["median_s"], tp["median_s"]) if nv else None
        c1 = ratio(cpu(tp), cpu(cl))
        c2 = ratio(cpu(nv), cpu(tp)) if nv else None
        r3 = ratio(tp["peak_rss_kb"], cl["peak_rss_kb"])
        c["ratios"].update({"pch_tilefit_over_clang": r1, "pch_nvcc_over_tilefit": r2,
                            "pch_cpu_tilefit_over_clang": c1, "pch_cpu_nvcc_over_tilefit": c2,
                            "pch_rss_tilefit_over_clang": r3})
        pch["pp"].append(r1)
        if r2 is not None and len(c["archs"]) == 1:
            pch["pn"].append(r2)
            pch["pnc"].append(c2)
        L.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["label"], archs_short(c["archs"]), c["units"], fmt_t(c["tilefit"]),
            fmt_t(tp), fmt_t(cl), fmt_t(nv), fmt_r(r1), fmt_r(r2, 1), fmt_r(c1), fmt_r(c2, 1),
            fmt_rss(tp), fmt_r(r3)))
    L.append("| **overall** (geometric mean of the rows) | | | | | | | **%s** | **%s** (1 arch) | | | | |"
             % (fmt_r(geomean(pch["pp"])), fmt_r(geomean(pch["pn"]), 1)))
    L.append("")
    return pch


def jobs_table(L, J):
    """-j 1 against -j 2; returns the speedup."""
    sp = ratio(J["j1"]["median_s"], J["j2"]["median_s"])
    L.append("### `-j 1` against `-j 2` (generated project, %d units, sm_90)" % J["units"])
    L.append("")
    L.append("| jobs | time | user+sys CPU | peak RSS (MiB) | speedup |")
    L.append("|---|---:|---:|---:|---:|")
    for name, m, s in (("-j 1", J["j1"], "1.00"), ("-j 2", J["j2"], fmt_r(sp))):
        L.append("| %s | %s | %.1f s | %s | %s |" % (name, fmt_t(m), m["user_s"] + m["system_s"], fmt_rss(m), s))
    L.append("")
    return sp


def scale_units_table(L, S):
    L.append("### Scaling with the number of units (generated, sm_90, `-j 1`)")
    L.append("")
    L.append("| units | runs | time | per unit | peak RSS (MiB) | time vs first row | RSS vs first row |")
    L.append("|---:|---:|---:|---:|---:|---:|---:|")
    for s in S:
        m = s["tilefit"]
        L.append("| %d | %d | %s | %.0f ms | %s | %s | %s |" % (
            s["units"], m["runs"], fmt_t(m), 1000 * m["median_s"] / s["units"], fmt_rss(m),
            fmt_r(ratio(m["median_s"], S[0]["tilefit"]["median_s"])),
            fmt_r(ratio(m["peak_rss_kb"], S[0]["tilefit"]["peak_rss_kb"]))))
    L.append("")


def instantiations_table(L, I):
    L.append("### Scaling with the template instantiations in one unit (sm_90)")
    L.append("")
    L.append("| instantiations | tilefit | clang parse | nvcc | tilefit / clang | nvcc / tilefit | "
             "tilefit / clang, CPU | RSS tilefit | RSS clang | RSS tilefit / clang |")
    L.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in I:
        tf, cl, nv = c["tilefit"], c["clang"], c.get("nvcc")
        L.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["instantiations"], fmt_t(tf), fmt_t(cl), fmt_t(nv),
            fmt_r(ratio(tf["median_s"], cl["median_s"])),
            fmt_r(ratio(nv["median_s"], tf["median_s"]) if nv else None, 1),
            fmt_r(ratio(cpu(tf), cpu(cl))),
            fmt_rss(tf), fmt_rss(cl), fmt_r(ratio(tf["peak_rss_kb"], cl["peak_rss_kb"]))))
    L.append("")


def host_parse_table(L, H):
    L.append("### The host-side parse (`bench/inputs/host_parse_on.cu` against `_off.cu`)")
    L.append("")
    L.append("| archs | with `__CUDA_ARCH__` (host parse) | without | difference | relative | RSS with | RSS without |")
    L.append("|---|---:|---:|---:|---:|---:|---:|")
    for tag in ("sm_90", "3arch"):
        on, off = H["%s/on" % tag], H["%s/off" % tag]
        d = on["median_s"] - off["median_s"]
        L.append("| %s | %s | %s | %+.0f ms | %+.0f%% | %s | %s |" % (
            "90" if tag == "sm_90" else "80,89,90", fmt_t(on), fmt_t(off), 1000 * d,
            100 * d / off["median_s"], fmt_rss(on), fmt_rss(off)))
    L.append("")
    L.append("For reference, Clang alone on the same unit: device-side parse (sm_90) %s, "
             "host-side parse (`--cuda-host-only`) %s."
             % (fmt_t(H["clang-device"]), fmt_t(H["clang-host"])))
    L.append("")


def warm_cache_table(L, W):
    if not W:
        return
    L.append("### The result cache, warm (`--cache-dir`, filled by the warmup run)")
    L.append("")
    L.append("| input | archs | tilefit, no cache | tilefit, warm cache | warm / cold | warm / clang parse | RSS warm |")
    L.append("|---|---|---:|---:|---:|---:|---:|")
    for w in W:
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            w["label"], archs_short(w["archs"]), fmt_t(w["cold"]), fmt_t(w["warm"]),
            fmt_r(ratio(w["warm"]["median_s"], w["cold"]["median_s"] if w["cold"] else None), 3),
            fmt_r(ratio(w["warm"]["median_s"], w["clang"]["median_s"] if w["clang"] else None), 3),
            fmt_rss(w["warm"])))
    L.append("")


def lsp_table(L, P):
    """The language server's sessions; adds each file's ratio_preamble_over_cold."""
    if not (P and "files" in P):
        return
    L.append("### The language server (a file opened, then edited %d times below its "
             "#include block; `--lsp-debounce-ms=0`, `--arch=sm_90`)" % P["edits"])
    L.append("")
    L.append("Each time runs from the message that sends the text to the diagnostics for that "
             "version. Cold (`--no-cache --lsp-preambles=false`): every analysis parses "
             "everything. Precompiled runtime headers (`--cache-dir`, a fresh folder, "
             "`--lsp-preambles=false`): the open builds them, the edits load them and parse "
             "the file's own headers. Preamble (the default): the open precompiles the file's "
             "#include block with the runtime headers, in memory, as clangd does; the edits "
             "reuse it and parse what follows the block. Each edit appends a comment, which "
             "changes no line of code: the default server answers it from the facts of the last "
             "parse, its positions moved (the memo); the last row's edits append a host "
             "function, which it parses.")
    L.append("")
    L.append("| file | server | open | edit, median (min–max) | edit / cold edit | "
             "edit / clang parse |")
    L.append("|---|---|---:|---:|---:|---:|")
    for E in P["files"]:
        cl = E.get("clang")
        cold = E["cold"]["median_edit_s"]
        for mode, name in (("cold", "cold"), ("pch", "precompiled runtime headers"),
                           ("preamble", "preamble (default)"),
                           ("preamble_code", "preamble (default), a line of code edited")):
            if mode not in E:
                continue
            m = E[mode]
            L.append("| `%s` | %s | %.3f s | %.3f s (%.3f–%.3f) | %s | %s |" % (
                E["file"], name, m["open_s"], m["median_edit_s"], m["min_edit_s"],
                m["max_edit_s"], fmt_r(ratio(m["median_edit_s"], cold)),
                fmt_r(ratio(m["median_edit_s"], cl["median_s"] if cl else None))))
        E["ratio_preamble_over_cold"] = ratio(E["preamble"]["median_edit_s"], cold)
    L.append("")


# -- targets ------------------------------------------------------------------------------------

def targets_table(L, R, comps, g, pch, sp):
    """The targets, each against what was measured: `g` from time_table, `pch` from
    pch_table, `sp` the -j 2 speedup."""
    L.append("### Targets")
    L.append("")
    L.append("| target | measured | met |")
    L.append("|---|---|---|")
    target_parse(L, comps, g)
    if pch["rows"]:
        target_pch(L, pch)
    else:
        L.append("| tilefit / clang parse ≤ %.1f with a precompiled header of the CUDA headers | "
                 "not measured: this tilefit has no cache folder | **no** |" % TARGET_PARSE_RATIO_PCH)
    target_nvcc(L, comps, g)
    L.append("| `-j 2` ≥ %.1f× faster than `-j 1` | %.2f× (%d units) | %s |" % (
        TARGET_J2_SPEEDUP, sp, R["jobs"]["units"], mark(sp >= TARGET_J2_SPEEDUP)))
    target_rss(L, R, comps, g)
    C = R.get("cache_after_example")
    if C:
        # One per architecture on the device side, one for the host side (its parse is the
        # same for every architecture).
        L.append("| one precompiled runtime header per architecture and side (example project, "
                 "%d architectures, from an empty cache) | %d runtime, %d shared-include; "
                 "folder %.1f MB | %s |" % (C["archs"], C["runtime_pch"], C["prefix_pch"],
                                            C["bytes"] / 1e6,
                                            mark(C["runtime_pch"] <= C["archs"] + 1)))
    L.append("")


def target_parse(L, comps, g):
    worst = max(comps, key=lambda c: c["ratios"]["tilefit_over_clang"] or 0)
    no_host = [c for c in comps if not c["host_parse"]]
    worst_nh = max(no_host, key=lambda c: c["ratios"]["tilefit_over_clang"] or 0) if no_host else None
    L.append("| tilefit / clang parse ≤ %.2f per unit and architecture, no cache | worst %.2f (%s, %s); "
             "worst without a host parse %s; overall %.2f (CPU time: %.2f) | %s |" % (
                 TARGET_PARSE_RATIO, worst["ratios"]["tilefit_over_clang"], worst["label"],
                 ",".join(worst["archs"]),
                 "%.2f (%s)" % (worst_nh["ratios"]["tilefit_over_clang"], worst_nh["label"]) if worst_nh else "—",
                 g["g1"], g["gc1"], mark(worst["ratios"]["tilefit_over_clang"] <= TARGET_PARSE_RATIO)))


def target_pch(L, pch):
    rows = pch["rows"]
    proj = [c for c in rows if c["label"] == "example project (-p)"
            or c["label"].startswith("generated project")]
    worst_p = max(proj or rows, key=lambda c: c["ratios"]["pch_tilefit_over_clang"] or 0)
    L.append("| tilefit / clang parse ≤ %.1f with the precompiled CUDA headers, example and "
             "generated projects | %s; overall %s | %s |" % (
                 TARGET_PARSE_RATIO_PCH,
                 "; ".join("%s %s: %.2f (CPU %.2f)" % (c["label"], archs_short(c["archs"]),
                                                      c["ratios"]["pch_tilefit_over_clang"],
                                                      c["ratios"]["pch_cpu_tilefit_over_clang"])
                           for c in proj),
                 fmt_r(geomean(pch["pp"])),
                 mark(worst_p["ratios"]["pch_tilefit_over_clang"] <= TARGET_PARSE_RATIO_PCH)))
    pn1 = [c for c in rows if len(c["archs"]) == 1 and c["ratios"]["pch_nvcc_over_tilefit"]]
    if pn1:
        wn = min(pn1, key=lambda c: c["ratios"]["pch_nvcc_over_tilefit"])
        L.append("| nvcc / tilefit ≥ %.0f for one architecture, precompiled CUDA headers | worst %.1f (%s); "
                 "overall %s (CPU time: %s) | %s |" % (
                     TARGET_NVCC_RATIO, wn["ratios"]["pch_nvcc_over_tilefit"], wn["label"],
                     fmt_r(geomean(pch["pn"]), 1), fmt_r(geomean(pch["pnc"]), 1),
                     mark(wn["ratios"]["pch_nvcc_over_tilefit"] >= TARGET_NVCC_RATIO)))


def target_nvcc(L, comps, g):
    nv1 = [c for c in comps if len(c["archs"]) == 1 and c["ratios"]["nvcc_over_tilefit"] is not None]
    if not nv1:
        return
    worst_nv = min(nv1, key=lambda c: c["ratios"]["nvcc_over_tilefit"])
    L.append("| nvcc / tilefit ≥ %.0f for one architecture | worst %.1f (%s); overall %.1f (CPU time: %.1f) | %s |" % (
        TARGET_NVCC_RATIO, worst_nv["ratios"]["nvcc_over_tilefit"], worst_nv["label"], g["g2a"],
        g["gc2a"], mark(worst_nv["ratios"]["nvcc_over_tilefit"] >= TARGET_NVCC_RATIO)))


def target_rss(L, R, comps, g):
    worst_rss = max(comps, key=lambda c: c["ratios"]["rss_tilefit_over_clang"] or 0)
    single = [c for c in comps if c["units"] == 1]
    worst_rss1 = max(single, key=lambda c: c["ratios"]["rss_tilefit_over_clang"] or 0) if single else None
    L.append("| peak memory ≤ %.1f× Clang's parse of the same unit | worst %.2f (%s, %s); worst single unit %s; overall %.2f | %s |" % (
        TARGET_RSS_RATIO, worst_rss["ratios"]["rss_tilefit_over_clang"], worst_rss["label"],
        ",".join(worst_rss["archs"]),
        "%.2f (%s)" % (worst_rss1["ratios"]["rss_tilefit_over_clang"], worst_rss1["label"]) if worst_rss1 else "—",
        g["g3"], mark(worst_rss["ratios"]["rss_tilefit_over_clang"] <= TARGET_RSS_RATIO)))
    # A whole project's memory: the largest unit-count run against Clang's parse of one of its
    # units (the generated project's Clang column is the largest single parse).
    S = R.get("scale_units") or []
    gen = [c for c in comps if c["label"].startswith("generated project, all")]
    if S and gen and gen[0]["clang"].get("peak_rss_kb"):
        big = max(S, key=lambda s: s["units"])
        r = ratio(big["tilefit"]["peak_rss_kb"], gen[0]["clang"]["peak_rss_kb"])
        L.append("| peak memory of a %d-unit run ≤ %.1f× one unit's Clang parse | %.2f (%s MiB "
                 "against %s MiB) | %s |" % (big["units"], TARGET_RSS_RATIO, r,
                                             fmt_rss(big["tilefit"]), fmt_rss(gen[0]["clang"]),
                                             mark(r <= TARGET_RSS_RATIO)))


# -- noise --------------------------------------------------------------------------------------

def noise(L, measurements):
    """Failed commands, and how busy other processes kept the machine."""
    noisy = [(k, m["other_load_cores"], m.get("contended")) for k, m in measurements.items()
             if (m.get("other_load_cores") or 0) >= 0.15]
    loads = [m["other_load_cores"] for m in measurements.values()
             if m.get("other_load_cores") is not None]
    failed = [k for k, m in measurements.items() if m.get("failed")]
    if failed:
        L.append("**Failed commands** (exit status other than 0, or 1 for tilefit's findings): "
                 + ", ".join("`%s`" % k for k in failed))
        L.append("")
    if loads:
        L.append("Other processes on the machine used %.2f cores on average during the "
                 "measurements (at most %.2f)." % (statistics.mean(loads), max(loads)))
        L.append("")
    if noisy:
        L.append("They used 0.15 cores or more during: " + ", ".join(
            "`%s` (%.2f%s)" % (k, v, ", **on its cores**" if c else "") for k, v, c in noisy)
            + ". Those figures are less reliable, above all where the others needed more than "
            "the cores the measured command left idle (**on its cores**).")
    else:
        L.append("No other process used 0.15 cores or more during any measurement.")
    L.append("")
