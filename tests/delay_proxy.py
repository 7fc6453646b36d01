#!/usr/bin/env python3
"""A delay line for ssh (its ProxyCommand): connects to HOST:PORT and relays stdin to the
connection and the connection to stdout, every byte DELAY_MS milliseconds late in each
direction, so that a round trip takes 2 x DELAY_MS more. Stands in for tc netem on kernels
without it (tests/netfs_lib.sh, NETFS_DELAY_MS).

    delay_proxy.py HOST PORT DELAY_MS
"""
import os
import queue
import socket
import sys
import threading
import time


def delay_line(read, write, delay, done):
    """Copies read() to write(), each chunk delay seconds after it was read."""
    pending = queue.Queue()

    def reader():
        while True:
            data = read()
            pending.put((time.monotonic() + delay, data))
            if not data:
                return

    threading.Thread(target=reader, daemon=True).start()
    while True:
        due, data = pending.get()
        time.sleep(max(0.0, due - time.monotonic()))
        if not data:
            done.set()
            return
        write(data)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    host, port, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 1000.0
    conn = socket.create_connection((host, port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    done = threading.Event()
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()

    def write_out(data):
        while data:
            data = data[os.write(stdout, data):]

    def close_out():
        try:
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    up = threading.Thread(target=lambda: (delay_line(lambda: os.read(stdin, 65536), conn.sendall,
                                                     delay, threading.Event()), close_out()),
                          daemon=True)
    up.start()
    delay_line(lambda: conn.recv(65536), write_out, delay, done)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, ConnectionError, KeyboardInterrupt):
        pass
