// Runs MPI collectives and prints, for each, the point-to-point messages every rank sent to every
// other: the fingerprint of the algorithm the library chose. The counts come from Open MPI's
// pml_monitoring component (see mca_common_monitoring_record_pml below), reset before each call.
// Run it under
//   mpirun --mca pml_monitoring_enable 1 [--mca coll_tuned_use_dynamic_rules 1 ...] coll_fingerprint CONFIG...
// where each CONFIG is COLLECTIVE:M, M the words (8-byte doubles) of ppsim's size parameter: the
// vector (allreduce, bcast, reduce) or the block of one rank (allgather, alltoall, gather, scatter,
// reduce_scatter, which MPI_Reduce_scatter gets as p equal counts). Rooted collectives use root 0.
// Rank 0 prints one line per CONFIG:
//   COLLECTIVE M P  c(0,0) .. c(0,P-1) | .. | c(P-1,0) .. c(P-1,P-1)  ;  b(0,0) .. | .. b(P-1,P-1)  ;  e(0,0) .. | .. e(P-1,P-1)
// c(i,j) messages and b(i,j) bytes that rank i sent to rank j, e(i,j) of the c(i,j) messages empty
// (0 bytes: a barrier's, or the empty blocks some algorithms send). Bad input: one line on stderr, exit 2.
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static const char* const kCollectives[] = {"allreduce", "bcast",     "reduce",  "allgather", "alltoall",
                                           "reduce_scatter", "barrier", "gather", "scatter"};
enum { kCount = sizeof(kCollectives) / sizeof(kCollectives[0]) };

static int collective_index(const char* name, size_t len) {
  for (int i = 0; i < kCount; ++i)
    if (strlen(kCollectives[i]) == len && strncmp(kCollectives[i], name, len) == 0) return i;
  return -1;
}

static void usage_exit(const char* why, const char* arg) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) fprintf(stderr, "coll_fingerprint: %s '%s' (want COLLECTIVE:M, COLLECTIVE one of allreduce bcast reduce allgather alltoall reduce_scatter barrier gather scatter, M >= 1 words)\n", why, arg);
  MPI_Finalize();
  exit(2);
}

// Runs collective c on m words (per rank block where the collective has blocks).
static void run(int c, long m, int p, double* a, double* b, int* counts) {
  const int n = (int)m;
  switch (c) {
    case 0: MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case 1: MPI_Bcast(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
    case 2: MPI_Reduce(a, b, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case 3: MPI_Allgather(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, MPI_COMM_WORLD); break;
    case 4: MPI_Alltoall(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, MPI_COMM_WORLD); break;
    case 5:
      for (int i = 0; i < p; ++i) counts[i] = n;
      MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case 6: MPI_Barrier(MPI_COMM_WORLD); break;
    case 7: MPI_Gather(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
    case 8: MPI_Scatter(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
  }
}

// The messages and bytes this rank sent to each rank during the collective: count, bytes, then the
// count of empty messages.
enum { kTables = 3 }; /* count, bytes, empty count */
static unsigned long long* g_sent = nullptr;
static int g_p = 0, g_recording = 0;
static unsigned long long g_calls = 0; /* every record, in or out of a collective: 0 means no monitoring */

/* Open MPI's pml_monitoring component (ompi/mca/pml/monitoring) wraps every point-to-point send of
 * the selected PML (send, isend, start of a persistent request), collectives' included, and records
 * each one through this function of libmca_common_monitoring (ompi/mca/common/monitoring), with the
 * destination's rank in MPI_COMM_WORLD and the message's bytes. The executable exports its own
 * definition (linked with ENABLE_EXPORTS), which the dynamic linker binds the component's calls to
 * before the library's, so each rank counts its sends itself and can tell one collective from the
 * next. The component's MPI_T variables (pml_monitoring_messages_count/size) would do the same, but
 * Open MPI 4.1 built with components as plugins deregisters them when it closes the component after
 * interposing it, and its file output (pml_monitoring_filename) only sums the whole run. */
extern "C" void mca_common_monitoring_record_pml(int world_rank, size_t data_size, int tag);
extern "C" void mca_common_monitoring_record_pml(int world_rank, size_t data_size, int tag) {
  (void)tag;
  ++g_calls;
  if (!g_recording || world_rank < 0 || world_rank >= g_p) return;
  g_sent[world_rank] += 1;
  g_sent[g_p + world_rank] += data_size;
  if (data_size == 0) g_sent[2 * g_p + world_rank] += 1;
}

int main(int argc, char** argv) {
  int rank = 0, p = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 2) usage_exit("no configuration", "");

  /* Parse every configuration first, so bad input fails before any collective runs. */
  int* coll = (int*)malloc(sizeof(int) * (size_t)argc);
  long* words = (long*)malloc(sizeof(long) * (size_t)argc);
  long most = 1;
  for (int i = 1; i < argc; ++i) {
    const char* colon = strchr(argv[i], ':');
    if (!colon) usage_exit("no ':' in", argv[i]);
    coll[i] = collective_index(argv[i], (size_t)(colon - argv[i]));
    if (coll[i] < 0) usage_exit("unknown collective in", argv[i]);
    char* end = nullptr;
    words[i] = strtol(colon + 1, &end, 10);
    if (*end != '\0' || words[i] < 1 || words[i] > (1L << 24)) usage_exit("bad word count in", argv[i]);
    if (words[i] > most) most = words[i];
  }

  const size_t cells = (size_t)most * (size_t)p;
  double* a = (double*)calloc(cells, sizeof(double));
  double* b = (double*)calloc(cells, sizeof(double));
  int* counts = (int*)malloc(sizeof(int) * (size_t)p);
  g_sent = (unsigned long long*)calloc(kTables * (size_t)p, sizeof(unsigned long long));
  g_p = p;
  unsigned long long* mine = (unsigned long long*)malloc(sizeof(unsigned long long) * kTables * (size_t)p);
  unsigned long long* all = (unsigned long long*)malloc(sizeof(unsigned long long) * kTables * (size_t)p * (size_t)p);
  for (size_t i = 0; i < cells; ++i) a[i] = (double)(rank + 1);

  for (int i = 1; i < argc; ++i) {
    MPI_Barrier(MPI_COMM_WORLD); /* every rank done with the previous report before this call */
    for (int j = 0; j < kTables * p; ++j) g_sent[j] = 0;
    g_recording = 1;
    run(coll[i], words[i], p, a, b, counts);
    g_recording = 0;
    for (int j = 0; j < kTables * p; ++j) mine[j] = g_sent[j];
    MPI_Allreduce(MPI_IN_PLACE, &g_calls, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (g_calls == 0) {
      if (rank == 0) fprintf(stderr, "coll_fingerprint: pml_monitoring recorded no message at all (run with --mca pml_monitoring_enable 1 under Open MPI 3 or later)\n");
      MPI_Finalize();
      return 2;
    }
    MPI_Gather(mine, kTables * p, MPI_UNSIGNED_LONG_LONG, all, kTables * p, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("%s %ld %d ", kCollectives[coll[i]], words[i], p);
      for (int half = 0; half < kTables; ++half) {
        if (half) printf(" ;");
        for (int r = 0; r < p; ++r) {
          if (r) printf(" |");
          for (int j = 0; j < p; ++j) printf(" %llu", all[(size_t)r * kTables * p + (size_t)half * p + j]);
        }
      }
      printf("\n");
      fflush(stdout);
    }
  }

  free(a); free(b); free(counts); free(g_sent); free(mine); free(all); free(coll); free(words);
  MPI_Finalize();
  return 0;
}
