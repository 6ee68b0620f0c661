"""Runs a command and writes its peak resident memory (bytes) to a file:
`python maxrss.py OUT.txt program args...`. The benchmark launches
foehn-server through it (an MPI rank may be a child of a wrapper: it takes
its place from the environment mpiexec set)."""
import resource
import subprocess
import sys

code = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024))
sys.exit(code)
