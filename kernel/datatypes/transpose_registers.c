#include "datatypes/transpose_registers.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX __attribute__((target("avx")))

int transpose_registers_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx");
}

/* One 4 x 4 square: rows of `from` to columns of `to`. */
AVX static inline void square(const uint64_t *f, size_t fs, uint64_t *t, size_t ts, int stream)
{
    const double *from = (const double *)f;
    double *to = (double *)t;
    __m256d r0 = _mm256_loadu_pd(from), r1 = _mm256_loadu_pd(from + fs);
    __m256d r2 = _mm256_loadu_pd(from + 2 * fs), r3 = _mm256_loadu_pd(from + 3 * fs);
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    __m256d c0 = _mm256_permute2f128_pd(t0, t2, 0x20), c1 = _mm256_permute2f128_pd(t1, t3, 0x20);
    __m256d c2 = _mm256_permute2f128_pd(t0, t2, 0x31), c3 = _mm256_permute2f128_pd(t1, t3, 0x31);
    if (stream) {
        _mm256_stream_pd(to, c0), _mm256_stream_pd(to + ts, c1);
        _mm256_stream_pd(to + 2 * ts, c2), _mm256_stream_pd(to + 3 * ts, c3);
    } else {
        _mm256_storeu_pd(to, c0), _mm256_storeu_pd(to + ts, c1);
        _mm256_storeu_pd(to + 2 * ts, c2), _mm256_storeu_pd(to + 3 * ts, c3);
    }
}

/* Within a group, the destination's rows (c) are the outer loop of the
 * tiles and of the squares, so that a tile's rows are written from end to
 * end, whole lines (a tile is two lines wide), one after the other. */
AVX void transpose_registers(const uint64_t *from, size_t fs, uint64_t *to, size_t ts, long rows, long cols, long side,
                             long group, int stream)
{
    stream = stream && (uintptr_t)to % 32 == 0 && ts % 4 == 0;
    long rows4 = rows & ~3L, cols4 = cols & ~3L;
    for (long gr = 0; gr < rows4; gr += group)
        for (long gc = 0; gc < cols4; gc += group) {
            long er = gr + group < rows4 ? gr + group : rows4, ec = gc + group < cols4 ? gc + group : cols4;
            for (long cc = gc; cc < ec; cc += side)
                for (long rr = gr; rr < er; rr += side) {
                    long ecc = cc + side < ec ? cc + side : ec, err = rr + side < er ? rr + side : er;
                    for (long c = cc; c < ecc; c += 4)
                        for (long r = rr; r < err; r += 4)
                            square(from + (size_t)r * fs + (size_t)c, fs, to + (size_t)c * ts + (size_t)r, ts,
                                   stream);
                }
        }
    if (stream)
        _mm_sfence();  /* the streamed lines reach memory before anyone reads them */
    for (long c = 0; c < cols; c++)  /* the edges: rows beyond rows4 in every column, columns beyond cols4 */
        for (long r = c < cols4 ? rows4 : 0; r < rows; r++)
            to[(size_t)c * ts + (size_t)r] = from[(size_t)r * fs + (size_t)c];
}

#else

int transpose_registers_available(void)
{
    return 0;
}

void transpose_registers(const uint64_t *from, size_t fs, uint64_t *to, size_t ts, long rows, long cols, long side,
                         long group, int stream)
{
    (void)side, (void)group, (void)stream;
    for (long c = 0; c < cols; c++)
        for (long r = 0; r < rows; r++)
            to[(size_t)c * ts + (size_t)r] = from[(size_t)r * fs + (size_t)c];
}

#endif
