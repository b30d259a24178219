#!/usr/bin/env python3
"""A fake `assignor serve` for the bridges' worker tests: it speaks DESIGN 4.9's framing (a header
line of ASCII words, then exactly N bytes) and misbehaves on demand.

    fake-worker.py BEHAVIOUR serve --config C [--plugin-path P]...

Each request `assign N` + N bytes is answered `ok N` + a JSON document naming this process and the
request's number in it ({"pid": ..., "request": k, "bytes": N, "config": C}), unless BEHAVIOUR says
otherwise for request k. BEHAVIOUR is a comma-separated list of `K:what` (K = the request number in
this process, from 1; `*` = every request), what being:
  crash        exit with status 70 after reading the request (a line on stderr first)
  segv         kill itself with SIGSEGV after reading the request
  hang         never answer (sleeps)
  garbage      answer a header that is no header ("hello world")
  short        announce 100 bytes, write 10, exit
  extra        a good answer followed by bytes outside any frame
  error        answer `error 4 N` + a message
  big          a good answer of 5 MB
  chatter      write 3 lines on stderr before a good answer
and `start:exit` (exit with status 2 at start, a config error on stderr, reading nothing).
"""
import json
import os
import signal
import sys
import time


def main():
    behaviour = {}
    for item in sys.argv[1].split(","):
        if item:
            k, _, what = item.partition(":")
            behaviour[k] = what
    args = sys.argv[2:]
    config = args[args.index("--config") + 1] if "--config" in args else ""
    if behaviour.get("start") == "exit":
        sys.stderr.write("assignor: error: %s:3:1: unknown key 'strategey'; did you mean 'strategy'?\n" % config)
        sys.exit(2)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    k = 0
    while True:
        header = stdin.readline()
        if not header:
            return  # stdin closed: done
        words = header.decode("ascii").split()
        if len(words) != 2 or words[0] != "assign":
            sys.stderr.write("assignor: error: bad request header\n")
            sys.exit(2)
        n = int(words[1])
        body = stdin.read(n)
        k += 1
        what = behaviour.get(str(k), behaviour.get("*", "ok"))
        if what == "crash":
            sys.stderr.write("fake worker: crashing on request %d\n" % k)
            sys.stderr.flush()
            sys.exit(70)
        if what == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if what == "hang":
            time.sleep(3600)
        if what == "garbage":
            stdout.write(b"hello world\n")
            stdout.flush()
            continue
        if what == "short":
            stdout.write(b"ok 100\n" + b"x" * 10)
            stdout.flush()
            sys.exit(0)
        if what == "error":
            message = b"assignor: error: strategy least_movement threw: boom"
            stdout.write(b"error 4 %d\n" % len(message) + message)
            stdout.flush()
            continue
        if what == "chatter":
            for i in range(3):
                sys.stderr.write("assignor: warning: chatter %d of request %d\n" % (i, k))
            sys.stderr.flush()
            time.sleep(0.2)  # the lines reach the bridge before the answer
        answer = {"pid": os.getpid(), "request": k, "bytes": len(body), "config": config}
        if what == "big":
            answer["padding"] = "p" * (5 * 1024 * 1024)
        data = json.dumps(answer).encode()
        frame = b"ok %d\n" % len(data) + data
        if what == "extra":
            frame += b"and something more\n"
        stdout.write(frame)
        stdout.flush()


if __name__ == "__main__":
    main()
