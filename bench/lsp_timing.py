"""Times tilefit's language server the way an editor uses it (see bench/README.md).

One session: `tilefit lsp` is started, a file is opened, then edited again and again; each time
is from the message that sends the text (didOpen, didChange) to the publishDiagnostics for that
version. The server runs with `--lsp-debounce-ms=0`, so the times are the analyses themselves.

Standard library only.
"""
import json
import os
import statistics
import subprocess
import threading
import time


class Session:
    def __init__(self, argv, cwd):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.cond = threading.Condition()
        self.messages = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self.cond:
                        self.messages.append(None)
                        self.cond.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            body = out.read(length or 0)
            with self.cond:
                self.messages.append(json.loads(body))
                self.cond.notify_all()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        rid = self.next_id
        return self.wait(lambda m: m.get("id") == rid and "method" not in m)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, pred, timeout=600):
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for i, m in enumerate(self.messages):
                    if m is None:
                        raise RuntimeError("the language server exited")
                    if pred(m):
                        del self.messages[: i + 1]
                        return m
                left = deadline - time.time()
                if left <= 0:
                    raise RuntimeError("no answer from the language server in %d s" % timeout)
                self.cond.wait(left)

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=30)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def time_session(tilefit, extra_args, file, root, edits, edit="comment"):
    """Opens `file` in a server started with `extra_args`, then edits it `edits` times: each
    edit appends a comment (`edit="comment"`: no line of code changes, the server's memo may
    answer it) or a host function (`edit="code"`: the file is parsed again, every kernel
    unchanged). Returns {"open_s", "edits_s": [...], "median_edit_s", "diagnostics"}."""
    argv = [tilefit, "lsp", "--lsp-debounce-ms=0"] + list(extra_args)
    s = Session(argv, root)
    uri = "file://" + os.path.abspath(file)
    try:
        s.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + root,
                                 "capabilities": {}})
        s.notify("initialized", {})
        with open(file) as f:
            text = f.read()

        def diagnostics_of(version):
            return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                              and m["params"].get("uri") == uri
                              and m["params"].get("version") == version)

        t0 = time.perf_counter()
        s.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cuda", "version": 1, "text": text}})
        first = s.wait(diagnostics_of(1))
        opened = time.perf_counter() - t0
        times = []
        for v in range(2, edits + 2):
            # At the end: the same kernels, new text.
            if edit == "code":
                edited = text + "\nvoid tilefit_bench_edit_%d() {}\n" % v
            else:
                edited = text + "\n// edit %d\n" % v
            t0 = time.perf_counter()
            s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                "contentChanges": [{"text": edited}]})
            s.wait(diagnostics_of(v))
            times.append(time.perf_counter() - t0)
    finally:
        s.close()
    return {"open_s": opened, "edits_s": times,
            "median_edit_s": statistics.median(times) if times else None,
            "min_edit_s": min(times) if times else None,
            "max_edit_s": max(times) if times else None,
            "diagnostics": len(first["params"]["diagnostics"])}


def clang_parse_s(tilefit, file, db, runs):
    """Median seconds of Clang's own parse of `file` (`-fsyntax-only`, the device-side command
    tilefit prints with --show-parse-commands), `runs` times."""
    import shlex
    out = subprocess.run([tilefit, "--show-parse-commands", "--arch=sm_90", "-p", db, file],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    argv = shlex.split(out.strip().splitlines()[0])
    argv[0] = "clang++-19" if argv[0] == "clang++" else argv[0]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


MODES = (("cold", "cold", ["--no-cache", "--lsp-preambles=false"]),
         ("pch", "precompiled runtime headers", ["--cache-dir={fresh}", "--lsp-preambles=false"]),
         ("preamble", "preamble (default)", ["--no-cache"]))


def main():
    """The language server's table on its own (bench.py runs the same sessions in a full run):
    python3 bench/lsp_timing.py [--tilefit PATH] [--edits N]"""
    import argparse
    import json as _json
    import shutil
    import tempfile
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--tilefit", default=os.path.join(root, "build", "bin", "tilefit"))
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--clang-runs", type=int, default=5)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tilefit-lsp-bench-")
    try:
        example_db = os.path.join(root, "compile_commands_example", "build")
        if not os.path.exists(os.path.join(example_db, "compile_commands.json")):
            raise SystemExit("configure compile_commands_example first (scripts/quickstart.sh)")
        heavy = os.path.join(root, "bench", "inputs", "heavy_cub.cu")
        heavy_db = os.path.join(work, "heavy")
        os.makedirs(heavy_db)
        with open(os.path.join(heavy_db, "compile_commands.json"), "w") as f:
            _json.dump([{"directory": root, "file": heavy,
                         "arguments": ["clang++", "-x", "cuda", "--cuda-gpu-arch=sm_90",
                                       "-std=c++17", "-c", heavy]}], f)
        fresh = os.path.join(work, "cache")
        print("| file | server | open | edit, median (min–max) | edit / cold edit | "
              "edit / clang parse |")
        print("|---|---|---:|---:|---:|---:|")
        for file, db in ((os.path.join(root, "compile_commands_example", "src", "gemm.cu"),
                          example_db), (heavy, heavy_db)):
            clang = clang_parse_s(args.tilefit, file, db, args.clang_runs)
            cold = None
            for mode, name, extra in MODES:
                if os.path.isdir(fresh):
                    shutil.rmtree(fresh)
                argv = ["--arch=sm_90", "--compile-commands-dir=" + db] + [
                    e.format(fresh=fresh) for e in extra]
                m = time_session(args.tilefit, argv, file, root, args.edits)
                cold = cold or m["median_edit_s"]
                print("| `%s` | %s | %.3f s | %.3f s (%.3f–%.3f) | %.2f | %.2f |" % (
                    os.path.relpath(file, root), name, m["open_s"], m["median_edit_s"],
                    m["min_edit_s"], m["max_edit_s"], m["median_edit_s"] / cold,
                    m["median_edit_s"] / clang), flush=True)
            print("| `%s` | (Clang's parse, `-fsyntax-only`) | | %.3f s | | |" % (
                os.path.relpath(file, root), clang), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
