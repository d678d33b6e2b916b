#pragma once
// The float polynomials of the fast math functions, written once as data: vmath.h (and the wider
// lanes in unary_span.h / vmath_more.h) evaluate them in the eager kernels, and graph mode's code
// generator (backend/src/graph/fusion_codegen.cpp) prints them into the fused kernels' source, so
// eager and fused math cannot drift apart. Coefficients run from the highest degree down (Horner).
// Constants only: nothing here is compiled for an instruction set.

namespace tt::cpu::poly {

// exp(x) = 2^n (1 + r + r^2 P(r)), n = round(x log2 e), r = x - n ln 2 with ln 2 = kLn2Hi + kLn2Lo
// (kLn2Hi exact in a few bits, so n kLn2Hi is exact): Cephes expf, ~1 ulp. x is clamped to
// [kExpLo, kExpHi] first (the result is 0 or inf past them).
inline constexpr float kExpLo = -104.0f, kExpHi = 89.0f;
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
inline constexpr float kExp[] = {1.9875691500E-4f, 1.3981999507E-3f, 8.3334519073E-3f,
                                 4.1665795894E-2f, 1.6666665459E-1f, 5.0000001201E-1f};

// erf(x) = x P(x^2) / Q(x^2) on [-kErfMax, kErfMax] (erf is +-1 to float precision beyond): the
// rational minimax fit Eigen and XLA use, a few ulp.
inline constexpr float kErfMax = 4.0f;
inline constexpr float kErfP[] = {-2.72614225801306e-10f, 2.77068142495902e-08f, -2.10102402082508e-06f,
                                  -5.69250639462346e-05f, -7.34990630326855e-04f, -2.95459980854025e-03f,
                                  -1.60960333262415e-02f};
inline constexpr float kErfQ[] = {-1.45660718464996e-05f, -2.13374055278905e-04f, -1.68282697438203e-03f,
                                  -7.37332916720468e-03f, -1.42647390514189e-02f};

// tanh(x) = x + x^3 P(x^2) for |x| < kTanhSmallMax: Cephes tanhf, an ulp or two (above it,
// 1 - 2 / (exp(2|x|) + 1)).
inline constexpr float kTanhSmallMax = 0.625f;
inline constexpr float kTanhSmall[] = {-5.70498872745E-3f, 2.06390887954E-2f, -5.37397155531E-2f,
                                       1.33314422036E-1f, -3.33332819422E-1f};

// tanh(x) = x P(x^2) / Q(x^2): the odd rational minimax fit of degrees 13/6 that Eigen and XLA use,
// x clamped to +-kTanhRationalMax (where float tanh rounds to +-1); below kTanhRationalTiny tanh(x)
// is x to float precision (and the fit's x P(0) / Q(0) is 1.3e-7 off). <= 5 ulp against double
// tanh over every float, one division and no exp: the fused kernels' tanh (graph mode), where a
// group is compute-bound; eager mode's vtanh is the Cephes form above.
inline constexpr float kTanhRationalMax = 7.90531110763549805f, kTanhRationalTiny = 4e-4f;
inline constexpr float kTanhRationalP[] = {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                                           5.12229709037114e-08f,  1.48572235717979e-05f, 6.37261928875436e-04f,
                                           4.89352455891786e-03f};
inline constexpr float kTanhRationalQ[] = {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                                           4.89352518554385e-03f};

// log(1 + f) = f - f^2 / 2 + f^3 P(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: Cephes logf.
inline constexpr float kLog[] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                                 -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                                 2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};

}  // namespace tt::cpu::poly
