/// The Earth's heliocentric ecliptic longitude, latitude and distance from the VSOP87 planetary
/// theory (P. Bretagnon and G. Francou, "Planetary theories in rectangular and spherical
/// variables: VSOP87 solutions", Astronomy & Astrophysics 202, 309-315, 1988), version D
/// (ecliptic and equinox of date), truncated as in J. Meeus, "Astronomical Algorithms", 2nd ed.
/// (1998), Appendix III, whose tables are below as published; `truncate` keeps the terms that
/// matter over 1900-2100. Accuracy: about 0.3" in longitude against DE421 in 2024-2030.
///
/// Each series term is (A, B, C): A cos(B + C tau), tau in Julian millennia of TT from J2000.0;
/// A in 1e-8 radian (longitude, latitude) or 1e-8 au (distance).
enum VSOP87Earth {
  /// Heliocentric longitude L (radians, not reduced), latitude B (radians) and distance R (au).
  static func heliocentric(millenniaTT tau: Double) -> (longitude: Double, latitude: Double, distance: Double)
  {
    (evaluate(longitude, tau) * 1e-8, evaluate(latitude, tau) * 1e-8, evaluate(distance, tau) * 1e-8)
  }

  /// One power of tau: its terms, flattened (A, B, C, A, B, C, ...).
  struct Series {
    var power: Int
    var terms: [Double]
  }

  /// The terms that can matter over 1900-2100 (|tau| <= 0.1): A |tau|^power at least
  /// `threshold`. The longitude keeps every term worth 0.04" (all of L0, 4 of L1, 2 of L2; what
  /// is dropped adds up to at most 0.2" in 2100 and 0.05" now); the distance keeps 1e-5 au
  /// (7 terms, the rest sum to under 5e-5 au, 0.001" of aberration).
  static func truncate(_ series: [[Double]], threshold: Double) -> [Series] {
    var out: [Series] = []
    var scale = 1.0
    for (power, terms) in series.enumerated() {
      var kept: [Double] = []
      var i = 0
      while i < terms.count {
        if terms[i] * scale >= threshold { kept += terms[i..<(i + 3)] }
        i += 3
      }
      if !kept.isEmpty { out.append(Series(power: power, terms: kept)) }
      scale *= 0.1
    }
    return out
  }

  static let longitude = truncate([l0, l1, l2, l3, l4, l5], threshold: 20)
  static let latitude = truncate([b0, b1], threshold: 20)
  static let distance = truncate([r0, r1, r2, r3, r4], threshold: 1_000)

  /// Sum over powers: sum_k tau^k * sum_terms A cos(B + C tau).
  @inline(__always)
  static func evaluate(_ series: [Series], _ tau: Double) -> Double {
    var total = 0.0
    for s in series {
      var sum = 0.0
      s.terms.withUnsafeBufferPointer { terms in
        var i = 0
        while i < terms.count {
          sum += terms[i] * Maths.cos(terms[i + 1] + terms[i + 2] * tau)
          i += 3
        }
      }
      var power = 1.0
      for _ in 0..<s.power { power *= tau }
      total += sum * power
    }
    return total
  }

  /// Half the spacing of `triple`: 13 hours in Julian millennia, so that three places cover any
  /// local day (at most 25 hours) with margin.
  static let tripleHalfSpan = 13.0 / 24 / 365_250

  /// One power of tau with, per term, A, B, C, A cos(C h) and A sin(C h) for h = `tripleHalfSpan`.
  struct TripleSeries {
    var power: Int
    var terms: [Double]
  }

  static func triple(_ series: [Series]) -> [TripleSeries] {
    series.map { s in
      var terms: [Double] = []
      var i = 0
      while i < s.terms.count {
        let (a, b, c) = (s.terms[i], s.terms[i + 1], s.terms[i + 2])
        terms += [a, b, c, a * Maths.cos(c * tripleHalfSpan), a * Maths.sin(c * tripleHalfSpan)]
        i += 3
      }
      return TripleSeries(power: s.power, terms: terms)
    }
  }

  static let longitudeTriple = triple(longitude)
  static let latitudeTriple = triple(latitude)
  static let distanceTriple = triple(distance)

  /// L, B, R at tau - h, tau and tau + h (h = `tripleHalfSpan`) for the price of one evaluation:
  /// cos(x +- C h) = cos x cos C h -+ sin x sin C h, with the C h parts precomputed.
  static func heliocentricTriple(millenniaTT tau: Double) -> (
    minus: (longitude: Double, latitude: Double, distance: Double),
    middle: (longitude: Double, latitude: Double, distance: Double),
    plus: (longitude: Double, latitude: Double, distance: Double)
  ) {
    let l = evaluateTriple(longitudeTriple, tau)
    let b = evaluateTriple(latitudeTriple, tau)
    let r = evaluateTriple(distanceTriple, tau)
    return (
      (l.0 * 1e-8, b.0 * 1e-8, r.0 * 1e-8), (l.1 * 1e-8, b.1 * 1e-8, r.1 * 1e-8),
      (l.2 * 1e-8, b.2 * 1e-8, r.2 * 1e-8)
    )
  }

  static func evaluateTriple(_ series: [TripleSeries], _ tau: Double) -> (Double, Double, Double) {
    var minus = 0.0
    var middle = 0.0
    var plus = 0.0
    let h = tripleHalfSpan
    for s in series {
      var sumCos = 0.0
      var sumCosCos = 0.0
      var sumSinSin = 0.0
      s.terms.withUnsafeBufferPointer { terms in
        var i = 0
        while i < terms.count {
          // Reduce the argument first: sine and cosine then share one libm call.
          var x = terms[i + 1] + terms[i + 2] * tau
          x -= 2 * .pi * SolarTrack.roundedToInteger(x / (2 * .pi))
          let sinX = Maths.sin(x)
          let cosX = (1 - sinX * sinX).squareRoot()
          let c = abs(x) <= .pi / 2 ? cosX : -cosX
          sumCos += terms[i] * c
          sumCosCos += terms[i + 3] * c
          sumSinSin += terms[i + 4] * sinX
          i += 5
        }
      }
      var pm = 1.0
      var p0 = 1.0
      var pp = 1.0
      for _ in 0..<s.power {
        pm *= tau - h
        p0 *= tau
        pp *= tau + h
      }
      minus += (sumCosCos + sumSinSin) * pm
      middle += sumCos * p0
      plus += (sumCosCos - sumSinSin) * pp
    }
    return (minus, middle, plus)
  }

  // MARK: Longitude

  static let l0: [Double] = [
    175_347_046, 0, 0,
    3_341_656, 4.669_256_8, 6_283.075_850_0,
    34_894, 4.626_10, 12_566.151_70,
    3_497, 2.744_1, 5_753.384_9,
    3_418, 2.828_9, 3.523_1,
    3_136, 3.627_7, 77_713.771_5,
    2_676, 4.418_1, 7_860.419_4,
    2_343, 6.135_2, 3_930.209_7,
    1_324, 0.742_5, 11_506.769_8,
    1_273, 2.037_1, 529.691_0,
    1_199, 1.109_6, 1_577.343_5,
    990, 5.233, 5_884.927,
    902, 2.045, 26.298,
    857, 3.508, 398.149,
    780, 1.179, 5_223.694,
    753, 2.533, 5_507.553,
    505, 4.583, 18_849.228,
    492, 4.205, 775.523,
    357, 2.920, 0.067,
    317, 5.849, 11_790.629,
    284, 1.899, 796.298,
    271, 0.315, 10_977.079,
    243, 0.345, 5_486.778,
    206, 4.806, 2_544.314,
    205, 1.869, 5_573.143,
    202, 2.458, 6_069.777,
    156, 0.833, 213.299,
    132, 3.411, 2_942.463,
    126, 1.083, 20.775,
    115, 0.645, 0.980,
    103, 0.636, 4_694.003,
    102, 0.976, 15_720.839,
    102, 4.267, 7.114,
    99, 6.21, 2_146.17,
    98, 0.68, 155.42,
    86, 5.98, 161_000.69,
    85, 1.30, 6_275.96,
    85, 3.67, 71_430.70,
    80, 1.81, 17_260.15,
    79, 3.04, 12_036.46,
    75, 1.76, 5_088.63,
    74, 3.50, 3_154.69,
    74, 4.68, 801.82,
    70, 0.83, 9_437.76,
    62, 3.98, 8_827.39,
    61, 1.82, 7_084.90,
    57, 2.78, 6_286.60,
    56, 4.39, 14_143.50,
    56, 3.47, 6_279.55,
    52, 0.19, 12_139.55,
    52, 1.33, 1_748.02,
    51, 0.28, 5_856.48,
    49, 0.49, 1_194.45,
    41, 5.37, 8_429.24,
    41, 2.40, 19_651.05,
    39, 6.17, 10_447.39,
    37, 6.04, 10_213.29,
    37, 2.57, 1_059.38,
    36, 1.71, 2_352.87,
    36, 1.78, 6_812.77,
    33, 0.59, 17_789.85,
    30, 0.44, 83_996.85,
    30, 2.74, 1_349.87,
    25, 3.16, 4_690.48,
  ]

  static let l1: [Double] = [
    628_331_966_747, 0, 0,
    206_059, 2.678_235, 6_283.075_850,
    4_303, 2.635_1, 12_566.151_7,
    425, 1.590, 3.523,
    119, 5.796, 26.298,
    109, 2.966, 1_577.344,
    93, 2.59, 18_849.23,
    72, 1.14, 529.69,
    68, 1.87, 398.15,
    67, 4.41, 5_507.55,
    59, 2.89, 5_223.69,
    56, 2.17, 155.42,
    45, 0.40, 796.30,
    36, 0.47, 775.52,
    29, 2.65, 7.11,
    21, 5.34, 0.98,
    19, 1.85, 5_486.78,
    19, 4.97, 213.30,
    17, 2.99, 6_275.96,
    16, 0.03, 2_544.31,
    16, 1.43, 2_146.17,
    15, 1.21, 10_977.08,
    12, 2.83, 1_748.02,
    12, 3.26, 5_088.63,
    12, 5.27, 1_194.45,
    12, 2.08, 4_694.00,
    11, 0.77, 553.57,
    10, 1.30, 6_286.60,
    10, 4.24, 1_349.87,
    9, 2.70, 242.73,
    9, 5.64, 951.72,
    8, 5.30, 2_352.87,
    6, 2.65, 9_437.76,
    6, 4.67, 4_690.48,
  ]

  static let l2: [Double] = [
    52_919, 0, 0,
    8_720, 1.072_1, 6_283.075_8,
    309, 0.867, 12_566.152,
    27, 0.05, 3.52,
    16, 5.19, 26.30,
    16, 3.68, 155.42,
    10, 0.76, 18_849.23,
    9, 2.06, 77_713.77,
    7, 0.83, 775.52,
    5, 4.66, 1_577.34,
    4, 1.03, 7.11,
    4, 3.44, 5_573.14,
    3, 5.14, 796.30,
    3, 6.05, 5_507.55,
    3, 1.19, 242.73,
    3, 6.12, 529.69,
    3, 0.31, 398.15,
    3, 2.28, 553.57,
    2, 4.38, 5_223.69,
    2, 3.75, 0.98,
  ]

  static let l3: [Double] = [
    289, 5.844, 6_283.076,
    35, 0, 0,
    17, 5.49, 12_566.15,
    3, 5.20, 155.42,
    1, 4.72, 3.52,
    1, 5.30, 18_849.23,
    1, 5.97, 242.73,
  ]

  static let l4: [Double] = [
    114, 3.142, 0,
    8, 4.13, 6_283.08,
    1, 3.84, 12_566.15,
  ]

  static let l5: [Double] = [
    1, 3.14, 0,
  ]

  // MARK: Latitude

  static let b0: [Double] = [
    280, 3.199, 84_334.662,
    102, 5.422, 5_507.553,
    80, 3.88, 5_223.69,
    44, 3.70, 2_352.87,
    32, 4.00, 1_577.34,
  ]

  static let b1: [Double] = [
    9, 3.90, 5_507.55,
    6, 1.73, 5_223.69,
  ]

  // MARK: Distance

  static let r0: [Double] = [
    100_013_989, 0, 0,
    1_670_700, 3.098_463_5, 6_283.075_850_0,
    13_956, 3.055_25, 12_566.151_70,
    3_084, 5.198_5, 77_713.771_5,
    1_628, 1.173_9, 5_753.384_9,
    1_576, 2.846_9, 7_860.419_4,
    925, 5.453, 11_506.770,
    542, 4.564, 3_930.210,
    472, 3.661, 5_884.927,
    346, 0.964, 5_507.553,
    329, 5.900, 5_223.694,
    307, 0.299, 5_573.143,
    243, 4.273, 11_790.629,
    212, 5.847, 1_577.344,
    186, 5.022, 10_977.079,
    175, 3.012, 18_849.228,
    110, 5.055, 5_486.778,
    98, 0.89, 6_069.78,
    86, 5.69, 15_720.84,
    86, 1.27, 161_000.69,
    65, 0.27, 17_260.15,
    63, 0.92, 529.69,
    57, 2.01, 83_996.85,
    56, 5.24, 71_430.70,
    49, 3.25, 2_544.31,
    47, 2.58, 775.52,
    45, 5.54, 9_437.76,
    43, 6.01, 6_275.96,
    39, 5.36, 4_694.00,
    38, 2.39, 8_827.39,
    37, 0.83, 19_651.05,
    37, 4.90, 12_139.55,
    36, 1.67, 12_036.46,
    35, 1.84, 2_942.46,
    33, 0.24, 7_084.90,
    32, 0.18, 5_088.63,
    32, 1.78, 398.15,
    28, 1.21, 6_286.60,
    28, 1.90, 6_279.55,
    26, 4.59, 10_447.39,
  ]

  static let r1: [Double] = [
    103_019, 1.107_490, 6_283.075_850,
    1_721, 1.064_4, 12_566.151_7,
    702, 3.142, 0,
    32, 1.02, 18_849.23,
    31, 2.84, 5_507.55,
    25, 1.32, 5_223.69,
    18, 1.42, 1_577.34,
    10, 5.91, 10_977.08,
    9, 1.42, 6_275.96,
    9, 0.27, 5_486.78,
  ]

  static let r2: [Double] = [
    4_359, 5.784_6, 6_283.075_8,
    124, 5.579, 12_566.152,
    12, 3.14, 0,
    9, 3.63, 77_713.77,
    6, 1.87, 5_573.14,
    3, 5.47, 18_849.23,
  ]

  static let r3: [Double] = [
    145, 4.273, 6_283.076,
    7, 3.92, 12_566.15,
  ]

  static let r4: [Double] = [
    4, 2.56, 6_283.08,
  ]
}
