# Writes the MSCCL programs of this folder that msccl-tools' examples do not emit: a reduce-scatter
# ring and an out-of-place all-gather ring, written in msccl-tools' own language (MSCCLang) and
# emitted by its XML() like the examples. Run with msccl-tools on PYTHONPATH:
#   python3 generate.py reduce_scatter > reduce_scatter_ring.xml
#   python3 generate.py allgather      > allgather_ring_outofplace.xml
import sys

from msccl.language import *
from msccl.language.collectives import AllGather, ReduceScatter
from msccl.topologies import fully_connected


def reduce_scatter_ring(size):
    # Out of place, 2 channels: chunk i's partial starts at rank i+1 and travels the ring, each
    # rank adding its own input chunk i; rank i adds the last one and copies the sum to its output.
    with MSCCLProgram("reduce_scatter_ring", fully_connected(size), ReduceScatter(size, 1, False), 1,
                      protocol="Simple"):
        for i in range(size):
            ch = i % 2
            c = chunk((i + 1) % size, Buffer.input, i)
            for step in range(2, size + 1):
                nxt = (i + step) % size
                c = chunk(nxt, Buffer.input, i).reduce(c, ch=ch)
            c.copy(i, Buffer.output, 0)
        XML()
        Check()


def allgather_ring(size):
    # Out of place, one channel: every rank copies its input to output[r] and the ring forwards it.
    with MSCCLProgram("allgather_ring_outofplace", fully_connected(size), AllGather(size, 1, False), 1, protocol="Simple"):
        for r in range(size):
            c = chunk(r, Buffer.input, 0).copy(r, Buffer.output, r, sendtb=0)
            nxt = (r + 1) % size
            while nxt != r:
                c = c.copy(nxt, Buffer.output, r, sendtb=0, recvtb=0)
                nxt = (nxt + 1) % size
        XML()
        Check()


{"reduce_scatter": lambda: reduce_scatter_ring(4), "allgather": lambda: allgather_ring(4)}[sys.argv[1]]()
