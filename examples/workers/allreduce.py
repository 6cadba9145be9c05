#!/usr/bin/env python3
"""All-reduce one number across the JAX processes of a job, with the standard library only.

Reads the variables a JAX launcher exports (JAX_COORDINATOR_ADDRESS=host:port,
JAX_NUM_PROCESSES, JAX_PROCESS_ID).  Process 0 listens on the coordinator port; every other
process connects to it (retrying while the coordinator starts), sends its contribution
(process_id + 1) and receives the sum.  Each process prints the sum and exits 0 only when it
equals N*(N+1)/2, so a wrong process id, count or address makes the job fail.
"""
import os
import socket
import sys
import time

DEADLINE_S = float(os.environ.get("ALLREDUCE_TIMEOUT", "60"))


def env(name):
    value = os.environ.get(name)
    if value is None:
        sys.exit(f"allreduce: {name} is not set")
    return value


def serve(port, n, mine):
    srv = socket.create_server(("", port), reuse_port=False)
    srv.settimeout(DEADLINE_S)
    peers, total = [], mine
    while len(peers) < n - 1:
        conn, _ = srv.accept()
        value = int(conn.makefile().readline())
        total += value
        peers.append(conn)
    for conn in peers:
        conn.sendall(f"{total}\n".encode())
        conn.close()
    srv.close()
    return total


def join(host, port, mine):
    deadline = time.monotonic() + DEADLINE_S
    while True:
        try:
            conn = socket.create_connection((host, port), timeout=DEADLINE_S)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    conn.sendall(f"{mine}\n".encode())
    total = int(conn.makefile().readline())
    conn.close()
    return total


def main():
    host, _, port = env("JAX_COORDINATOR_ADDRESS").rpartition(":")
    n, pid = int(env("JAX_NUM_PROCESSES")), int(env("JAX_PROCESS_ID"))
    mine = pid + 1
    total = serve(int(port), n, mine) if pid == 0 else join(host, int(port), mine)
    want = n * (n + 1) // 2
    print(f"process {pid}/{n}: all-reduce sum = {total} (expected {want})", flush=True)
    return 0 if total == want else 1


if __name__ == "__main__":
    sys.exit(main())
