model AndrewsSqueezer "Andrews' squeezing mechanism: seven rigid bodies, six closing constraints (index 3)"
  // The seven-body mechanism of Hairer & Wanner, "Solving Ordinary Differential Equations II"
  // (2nd ed., Springer 1996), section VII.7, in the coordinates, parameters and initial values of
  // the IVP Test Set (F. Mazzia, C. Magherini: problem "andrews",
  // https://archimede.uniba.it/~testset/problems/andrews.php). The test set's reference solution
  // at t = 0.03 is checked by tests/correctness_squeezer.rs.
  //
  // The drive turns the first body with a constant torque `mom`; a spring of stiffness c0 pulls
  // the third body; the six constraints close the three loops through the fixed points A and B.
  parameter Real m1 = 0.04325;
  parameter Real m2 = 0.00365;
  parameter Real m3 = 0.02373;
  parameter Real m4 = 0.00706;
  parameter Real m5 = 0.07050;
  parameter Real m6 = 0.00706;
  parameter Real m7 = 0.05498;
  parameter Real xa = -0.06934;
  parameter Real ya = -0.00227;
  parameter Real xb = -0.03635;
  parameter Real yb = 0.03273;
  parameter Real xc = 0.014;
  parameter Real yc = 0.072;
  parameter Real c0 = 4530;
  parameter Real i1 = 2.194e-6;
  parameter Real i2 = 4.410e-7;
  parameter Real i3 = 5.255e-6;
  parameter Real i4 = 5.667e-7;
  parameter Real i5 = 1.169e-5;
  parameter Real i6 = 5.667e-7;
  parameter Real i7 = 1.912e-5;
  parameter Real d = 28e-3;
  parameter Real da = 115e-4;
  parameter Real e = 2e-2;
  parameter Real ea = 1421e-5;
  parameter Real rr = 7e-3;
  parameter Real ra = 92e-5;
  parameter Real l0 = 7785e-5;
  parameter Real ss = 35e-3;
  parameter Real sa = 1874e-5;
  parameter Real sb = 1043e-5;
  parameter Real sc = 18e-3;
  parameter Real sd = 2e-2;
  parameter Real ta = 2308e-5;
  parameter Real tb = 916e-5;
  parameter Real u = 4e-2;
  parameter Real ua = 1228e-5;
  parameter Real ub = 449e-5;
  parameter Real zf = 2e-2;
  parameter Real zt = 4e-2;
  parameter Real fa = 1421e-5;
  parameter Real mom = 33e-3 "drive torque";

  // The angles; the test set's consistent initial values (only beta is fixed: the constraints
  // determine the other six, the start values are their guesses).
  Real beta(start = -0.0617138900142764496358948458001, fixed = true);
  Real Theta(start = 0);
  Real gamma(start = 0.455279819163070380255912382449);
  Real Phi(start = 0.222668390165885884674473185609);
  Real delta(start = 0.487364979543842550225598953530);
  Real Omega(start = -0.222668390165885884674473185609);
  Real epsilon(start = 1.23054744454982119249735015568);
  // Angular velocities, at rest initially.
  Real wbeta(start = 0, fixed = true);
  Real wTheta(start = 0);
  Real wgamma(start = 0);
  Real wPhi(start = 0);
  Real wdelta(start = 0);
  Real wOmega(start = 0);
  Real wepsilon(start = 0);
  // Lagrange multipliers of the six constraints.
  Real lambda[6];
protected
  // Mass matrix (symmetric, only the lower triangle written), generalised forces, constraint
  // Jacobian G = dg/dq, spring.
  Real M11, M21, M22, M33, M44, M54, M55, M66, M76, M77;
  Real f[7];
  Real G[6, 7];
  Real xd, yd, lang, force, fx, fy;
equation
  der(beta) = wbeta;
  der(Theta) = wTheta;
  der(gamma) = wgamma;
  der(Phi) = wPhi;
  der(delta) = wdelta;
  der(Omega) = wOmega;
  der(epsilon) = wepsilon;

  M11 = m1 * ra ^ 2 + m2 * (rr ^ 2 - 2 * da * rr * cos(Theta) + da ^ 2) + i1 + i2;
  M21 = m2 * (da ^ 2 - da * rr * cos(Theta)) + i2;
  M22 = m2 * da ^ 2 + i2;
  M33 = m3 * (sa ^ 2 + sb ^ 2) + i3;
  M44 = m4 * (e - ea) ^ 2 + i4;
  M54 = m4 * ((e - ea) ^ 2 + zt * (e - ea) * sin(Phi)) + i4;
  M55 = m4 * (zt ^ 2 + 2 * zt * (e - ea) * sin(Phi) + (e - ea) ^ 2) + m5 * (ta ^ 2 + tb ^ 2) + i4 + i5;
  M66 = m6 * (zf - fa) ^ 2 + i6;
  M76 = m6 * ((zf - fa) ^ 2 - u * (zf - fa) * sin(Omega)) + i6;
  M77 = m6 * ((zf - fa) ^ 2 - 2 * u * (zf - fa) * sin(Omega) + u ^ 2) + m7 * (ua ^ 2 + ub ^ 2) + i6 + i7;

  xd = sd * cos(gamma) + sc * sin(gamma) + xb;
  yd = sd * sin(gamma) - sc * cos(gamma) + yb;
  lang = sqrt((xd - xc) ^ 2 + (yd - yc) ^ 2);
  force = -c0 * (lang - l0) / lang;
  fx = force * (xd - xc);
  fy = force * (yd - yc);

  f[1] = mom - m2 * da * rr * wTheta * (wTheta + 2 * wbeta) * sin(Theta);
  f[2] = m2 * da * rr * wbeta ^ 2 * sin(Theta);
  f[3] = fx * (sc * cos(gamma) - sd * sin(gamma)) + fy * (sd * cos(gamma) + sc * sin(gamma));
  f[4] = m4 * zt * (e - ea) * wdelta ^ 2 * cos(Phi);
  f[5] = -m4 * zt * (e - ea) * wPhi * (wPhi + 2 * wdelta) * cos(Phi);
  f[6] = -m6 * u * (zf - fa) * wepsilon ^ 2 * cos(Omega);
  f[7] = m6 * u * (zf - fa) * wOmega * (wOmega + 2 * wepsilon) * cos(Omega);

  G[1, :] = {-rr * sin(beta) + d * sin(beta + Theta), d * sin(beta + Theta), -ss * cos(gamma), 0, 0, 0, 0};
  G[2, :] = {rr * cos(beta) - d * cos(beta + Theta), -d * cos(beta + Theta), -ss * sin(gamma), 0, 0, 0, 0};
  G[3, :] = {-rr * sin(beta) + d * sin(beta + Theta), d * sin(beta + Theta), 0, -e * cos(Phi + delta), -e * cos(Phi + delta) + zt * sin(delta), 0, 0};
  G[4, :] = {rr * cos(beta) - d * cos(beta + Theta), -d * cos(beta + Theta), 0, -e * sin(Phi + delta), -e * sin(Phi + delta) - zt * cos(delta), 0, 0};
  G[5, :] = {-rr * sin(beta) + d * sin(beta + Theta), d * sin(beta + Theta), 0, 0, 0, zf * sin(Omega + epsilon), zf * sin(Omega + epsilon) - u * cos(epsilon)};
  G[6, :] = {rr * cos(beta) - d * cos(beta + Theta), -d * cos(beta + Theta), 0, 0, 0, -zf * cos(Omega + epsilon), -zf * cos(Omega + epsilon) - u * sin(epsilon)};

  // Equations of motion M(q) q'' = f(q, q') - G(q)' lambda.
  M11 * der(wbeta) + M21 * der(wTheta) = f[1] - G[:, 1] * lambda;
  M21 * der(wbeta) + M22 * der(wTheta) = f[2] - G[:, 2] * lambda;
  M33 * der(wgamma) = f[3] - G[:, 3] * lambda;
  M44 * der(wPhi) + M54 * der(wdelta) = f[4] - G[:, 4] * lambda;
  M54 * der(wPhi) + M55 * der(wdelta) = f[5] - G[:, 5] * lambda;
  M66 * der(wOmega) + M76 * der(wepsilon) = f[6] - G[:, 6] * lambda;
  M76 * der(wOmega) + M77 * der(wepsilon) = f[7] - G[:, 7] * lambda;

  // The three loops closed through the fixed points B and A (position level: index 3).
  rr * cos(beta) - d * cos(beta + Theta) - ss * sin(gamma) = xb;
  rr * sin(beta) - d * sin(beta + Theta) + ss * cos(gamma) = yb;
  rr * cos(beta) - d * cos(beta + Theta) - e * sin(Phi + delta) - zt * cos(delta) = xa;
  rr * sin(beta) - d * sin(beta + Theta) + e * cos(Phi + delta) - zt * sin(delta) = ya;
  rr * cos(beta) - d * cos(beta + Theta) - zf * cos(Omega + epsilon) - u * sin(epsilon) = xa;
  rr * sin(beta) - d * sin(beta + Theta) - zf * sin(Omega + epsilon) + u * cos(epsilon) = ya;
  annotation(experiment(StopTime = 0.03, Interval = 1e-4, Tolerance = 1e-8));
end AndrewsSqueezer;
