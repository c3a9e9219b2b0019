"""Reference solutions of the inertialess omni-vehicle model for examples/multibody/OmniVehicle.mo.

Gerasimov 2018, appendix 1.3 (Borisov, Kilin & Mamaev), with the corrections of the dissertation
digest: for the symmetric three-wheel vehicle (centre of mass at the platform centre) the platform
yaw rate w is constant and the body-frame velocity components obey
    nu1' = k*w*nu2,   nu2' = -k*w*nu1,   k = M/(M + (N/2)*J/l^2),
so the centre moves on a circle of radius |v|/((1-k)|w|) (a line when w = 0) and the heading grows
as w*t. M: total mass, J: axial inertia of a wheel (disc plus rollers), l: wheel radius.

minimo's world frame is y up; the planar coordinates used here are X = x, Y = -z, so a positive
yaw rate about +y is counter-clockwise in (X, Y). The script integrates the ODE with RK4 and checks
it against the closed form, then writes inertialess_reference.csv (time; X, Y, heading for the
three motions of the dissertation: 1 = translation v0 = 1 m/s towards wheel 1, 2 = spin w0 = 1 rad/s,
3 = both).

Vehicle parameters are those of OmniVehicle.mo in the limit of massless rollers: platform 3.3 kg,
wheel discs 1 kg (uniform discs of radius l: J = 1*l^2/2), l = 0.05 m, N = 3.
"""
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
N, l, mP, mW = 3, 0.05, 3.3, 1.0
J = mW * l**2 / 2
M = mP + N * mW
k = M / (M + (N / 2) * J / l**2)


def closed_form(t, v0, w0):
    """Centre (X, Y) and heading for initial velocity (v0, 0) in the plane and yaw rate w0."""
    heading = w0 * t
    rate = (1 - k) * w0
    if abs(rate) < 1e-15:
        return v0 * t, 0 * t, heading
    phi = rate * t
    return v0 / rate * np.sin(phi), v0 / rate * (1 - np.cos(phi)), heading


def rk4(v0, w0, t):
    """Integrates nu' (body frame) and the planar kinematics."""
    def f(y):
        n1, n2, X, Y, th = y
        return np.array([k * w0 * n2, -k * w0 * n1,
                         n1 * np.cos(th) - n2 * np.sin(th), n1 * np.sin(th) + n2 * np.cos(th), w0])
    y = np.array([v0, 0.0, 0.0, 0.0, 0.0])
    out = [y.copy()]
    for h in np.diff(t):
        for _ in range(10):
            s = h / 10
            k1 = f(y); k2 = f(y + s / 2 * k1); k3 = f(y + s / 2 * k2); k4 = f(y + s * k3)
            y = y + s / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        out.append(y.copy())
    return np.array(out)


def main():
    t = np.linspace(0, 10, 1001)
    cols, names = [t], ["time"]
    for i, (v0, w0) in enumerate([(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)], start=1):
        X, Y, th = closed_form(t, v0, w0)
        num = rk4(v0, w0, t)
        err = max(np.abs(num[:, 2] - X).max(), np.abs(num[:, 3] - Y).max(), np.abs(num[:, 4] - th).max())
        assert err < 1e-9, f"closed form and RK4 disagree for motion {i}: {err}"
        cols += [X, Y, th]
        names += [f"X{i}", f"Y{i}", f"heading{i}"]
    out = HERE / "inertialess_reference.csv"
    np.savetxt(out, np.column_stack(cols), delimiter=",", header=",".join(names), comments="", fmt="%.12g")
    print(f"k = {k:.10f}; wrote {out}")


if __name__ == "__main__":
    main()
