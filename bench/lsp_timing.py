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


def time_session(tilefit, extra_args, file, root, edits):
    """Opens `file` in a server started with `extra_args`, then edits it `edits` times.
    Returns {"open_s", "edits_s": [...], "median_edit_s", "diagnostics"}."""
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
            # A comment at the end: the same kernels, new text.
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
