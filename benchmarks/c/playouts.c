/* A C loop with the rules of Kalah(6,4) (empty capture, the game ends when a side is empty)
   and Oware Abapa (OpenSpiel's rules: the end at a position's first recurrence), written
   from ../docs/rules and the shared specs, to measure mancalab's compiled random play and
   perft beside it (bench_playouts.py --vs-c). Not part of mancalab.

   usage: playouts kalah|oware SECONDS        random playouts a second, mean length
          playouts kalah|oware perft DEPTH    move sequences of exactly DEPTH moves
   Build: cc -O3 -march=native -o playouts playouts.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

enum { N = 6, CELLS = 2 * N + 2 };
typedef struct { int8_t c[CELLS]; int8_t mover, over; } Board;

static uint64_t rng = 88172645463325252ULL;
static inline uint64_t next_random(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng;
}

/* ----- Kalah: cells 0..5 South's pits, 6 its store, 7..12 North's, 13 its store ----- */
static int kalah_moves(const Board *b, int *out) {
  int n = 0, first = b->mover ? N + 1 : 0;
  for (int i = first; i < first + N; i++) if (b->c[i]) out[n++] = i;
  return n;
}
static void kalah_play(Board *b, int pit) {
  int own = b->mover ? 2 * N + 1 : N, other = b->mover ? N : 2 * N + 1;
  int hand = b->c[pit], pos = pit;
  b->c[pit] = 0;
  while (hand) {
    pos = (pos + 1) % CELLS;
    if (pos == other) continue;
    b->c[pos]++; hand--;
  }
  if (pos != own) {
    int mine = b->mover ? (pos > N && pos < 2 * N + 1) : (pos < N);
    if (mine && b->c[pos] == 1) {
      int opposite = 2 * N - pos;
      b->c[own] += 1 + b->c[opposite]; b->c[pos] = 0; b->c[opposite] = 0;
    }
    b->mover ^= 1;
  }
  int south = 0, north = 0;
  for (int i = 0; i < N; i++) { south += b->c[i]; north += b->c[N + 1 + i]; }
  if (!south || !north) {
    b->c[N] += south; b->c[2 * N + 1] += north;
    for (int i = 0; i < N; i++) b->c[i] = b->c[N + 1 + i] = 0;
    b->over = 1;
  }
}

/* ----- Oware: cells 0..5 South's houses, 6..11 North's, 12 and 13 the captured seeds ----- */
static int oware_moves(const Board *b, int *out) {
  int p = b->mover, o = 1 - p, n = 0, fed = 0;
  for (int i = o * N; i < o * N + N; i++) fed |= b->c[i];
  for (int a = 0; a < N; a++) {
    int seeds = b->c[p * N + a];
    if (seeds && (fed || seeds > N - 1 - a)) out[n++] = p * N + a;
  }
  return n;
}
static void oware_sweep(Board *b) {
  for (int i = 0; i < 2 * N; i++) { b->c[2 * N + i / N] += b->c[i]; b->c[i] = 0; }
  b->over = 1;
}
static int oware_play(Board *b, int origin) {  /* whether seeds were captured */
  int p = b->mover, o = 1 - p, hand = b->c[origin], pos = origin, taken = 0;
  b->c[origin] = 0;
  while (hand) {
    pos = (pos + 1) % (2 * N);
    if (pos == origin) continue;
    b->c[pos]++; hand--;
  }
  if (pos >= o * N && pos < o * N + N) {
    int low = pos;
    while (low >= o * N && (b->c[low] == 2 || b->c[low] == 3)) low--;
    int left = 0;
    for (int i = o * N; i < o * N + N; i++) if (i <= low || i > pos) left += b->c[i];
    if (low < pos && left) {
      for (int i = low + 1; i <= pos; i++) { b->c[2 * N + p] += b->c[i]; b->c[i] = 0; }
      taken = 1;
    }
  }
  b->mover = o;
  return taken;
}
static void oware_end(Board *b, int recurred) {
  int half = 2 * N * 4 / 2;
  if (recurred) oware_sweep(b);
  if (b->c[2 * N] > half || b->c[2 * N + 1] > half ||
      (b->c[2 * N] == half && b->c[2 * N + 1] == half)) { oware_sweep(b); return; }
  int moves[N];
  if (!b->over && !oware_moves(b, moves)) oware_sweep(b);
}

/* positions since the last capture (earlier ones have other stores: they cannot recur) */
enum { SEEN = 1 << 12 };
static Board seen[SEEN]; static uint8_t used[SEEN]; static int n_seen;
static int seen_before(const Board *b) {
  uint64_t h = 1469598103934665603ULL;
  for (int i = 0; i < CELLS; i++) h = (h ^ (uint8_t)b->c[i]) * 1099511628211ULL;
  h = (h ^ b->mover) * 1099511628211ULL;
  for (unsigned i = h & (SEEN - 1);; i = (i + 1) & (SEEN - 1)) {
    if (!used[i]) { used[i] = 1; seen[i] = *b; n_seen++; return 0; }
    if (!memcmp(seen[i].c, b->c, CELLS) && seen[i].mover == b->mover) return 1;
  }
}
static void forget_seen(void) { if (n_seen) { memset(used, 0, sizeof used); n_seen = 0; } }

static Board start(void) {
  Board b = {{0}, 0, 0};
  for (int i = 0; i < 2 * N + 2; i++) b.c[i] = 4;
  b.c[N] = b.c[2 * N + 1] = 0;  /* Kalah's stores; Oware's are 12 and 13 */
  return b;
}
static Board oware_start(void) {
  Board b = {{0}, 0, 0};
  for (int i = 0; i < 2 * N; i++) b.c[i] = 4;
  return b;
}

static long playout(int oware) {
  Board b = oware ? oware_start() : start();
  int moves[N]; long plies = 0;
  if (oware) { forget_seen(); seen_before(&b); }
  while (!b.over) {
    int n = oware ? oware_moves(&b, moves) : kalah_moves(&b, moves);
    int move = moves[next_random() % n];
    plies++;
    if (!oware) { kalah_play(&b, move); continue; }
    if (oware_play(&b, move)) forget_seen();
    oware_end(&b, seen_before(&b));
  }
  return plies;
}

static long perft(const Board *b, int depth, int oware) {
  int moves[N], n = oware ? oware_moves(b, moves) : kalah_moves(b, moves);
  if (depth == 1) return n;
  long total = 0;
  for (int k = 0; k < n; k++) {
    Board child = *b;
    if (oware) { oware_play(&child, moves[k]); oware_end(&child, 0); }
    else kalah_play(&child, moves[k]);
    if (!child.over) total += perft(&child, depth - 1, oware);
  }
  return total;
}

static double now(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: playouts kalah|oware SECONDS | perft DEPTH\n"); return 2; }
  int oware = !strcmp(argv[1], "oware");
  if (!strcmp(argv[2], "perft")) {
    int depth = argc > 3 ? atoi(argv[3]) : 8;
    Board b = oware ? oware_start() : start();
    double t0 = now(); long count = perft(&b, depth, oware);
    printf("{\"sequences\": %ld, \"seconds\": %.6f}\n", count, now() - t0);
    return 0;
  }
  double seconds = atof(argv[2]), t0 = now();
  long games = 0, plies = 0;
  while (now() - t0 < seconds)
    for (int k = 0; k < 1000; k++) { plies += playout(oware); games++; }
  double spent = now() - t0;
  printf("{\"playouts_per_second\": %.1f, \"mean_length\": %.2f}\n", games / spent,
         (double)plies / games);
  return 0;
}
