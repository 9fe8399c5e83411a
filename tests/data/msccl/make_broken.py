# Writes the copies in broken/, each broken on purpose by one edit of a verified program of this
# folder; tests/test_msccl.cpp expects each to be caught where the edit was made.
#   python3 make_broken.py
import re


def lines_of(name):
    with open(name) as f:
        return f.read().split("\n")


def step_line(lines, gpu, tb, step):
    """Index of <step s=step> inside <tb id=tb> of <gpu id=gpu>."""
    g = t = None
    for i, line in enumerate(lines):
        if m := re.search(r'<gpu id="(\d+)"', line):
            g = int(m.group(1))
        if m := re.search(r'<tb id="(\d+)"', line):
            t = int(m.group(1))
        if (g, t) == (gpu, tb) and re.search(r'<step s="%d"' % step, line):
            return i
    raise KeyError((gpu, tb, step))


def write(name, lines):
    with open("broken/" + name, "w") as f:
        f.write("\n".join(lines))


# A step removed: gpu 0 tb 0 step 2 (cpy i[0] -> o[0]) of the reduce-scatter ring.
lines = lines_of("reduce_scatter_ring.xml")
del lines[step_line(lines, 0, 0, 2)]
write("reduce_scatter_step_removed.xml", lines)

# A chunk received at the wrong offset: gpu 1 tb 0 step 1 of the in-place all-gather ring
# receives gpu 2's chunk into o[3] instead of o[2].
lines = lines_of("allgather_ring_inplace_2ch.xml")
i = step_line(lines, 1, 0, 1)
lines[i] = lines[i].replace('dstoff="2"', 'dstoff="3"')
write("allgather_wrong_offset.xml", lines)

# A reduce turned into a copy: gpu 0 tb 1 step 1 of the all-reduce ring (rrcs -> rcs).
lines = lines_of("allreduce_ring_2ch.xml")
i = step_line(lines, 0, 1, 1)
lines[i] = lines[i].replace('type="rrcs"', 'type="rcs"')
write("allreduce_reduce_as_copy.xml", lines)

# Malformed: an unknown step type at gpu 2 tb 0 step 1; a chunk out of range at gpu 3 tb 1 step 0.
lines = lines_of("allreduce_ring_2ch.xml")
i = step_line(lines, 2, 0, 1)
lines[i] = re.sub(r'type="\w+"', 'type="rrx"', lines[i])
write("malformed_step_type.xml", lines)
lines = lines_of("allreduce_ring_2ch.xml")
i = step_line(lines, 3, 1, 0)
lines[i] = re.sub(r'srcoff="\d+"', 'srcoff="9"', lines[i])
write("malformed_chunk_range.xml", lines)

# A deadlock: on gpu 0, tb 0 step 0 waits for tb 1 step 0, which waits for tb 0 step 0.
lines = lines_of("allreduce_ring_2ch.xml")
for tb, other in ((0, 1), (1, 0)):
    i = step_line(lines, 0, tb, 0)
    lines[i] = lines[i].replace('depid="-1" deps="-1" hasdep="0"', 'depid="%d" deps="0" hasdep="1"' % other)
write("deadlock_dependency_cycle.xml", lines)
