// Class kinds and class prefixes.
within;
encapsulated package Kinds "every class kind"
  class C end C;
  model M end M;
  record R Real a; Integer n = 2; end R;
  operator record Complex
    Real re, im;
    encapsulated operator '+'
      function add
        input Complex a, b;
        output Complex c;
      algorithm
        c := Complex(a.re + b.re, a.im + b.im);
      end add;
    end '+';
  end Complex;
  block B input Real u; output Real y; equation y = 2 * u; end B;
  connector Flange Real phi; flow Real tau; end Flange;
  expandable connector Bus end Bus;
  type Angle = Real(final quantity = "Angle", unit = "rad", displayUnit = "deg");
  type Vector3 = Real[3];
  type Mode = enumeration(off "switched off", on, auto) "operating mode";
  type Open = enumeration(:);
  function f input Real x; output Real y; algorithm y := x ^ 2; end f;
  pure function g input Real x; output Real y; algorithm y := x; end g;
  impure function h output Real y; algorithm y := 1; end h;
  function df = der(f, x) "derivative of f";
  partial model PartialBase Real x; end PartialBase;
  model Short = PartialBase(x(start = 1)) "short class";
  model WithReplaceable
    replaceable model Friction = Coulomb constrainedby PartialFriction "friction law";
    replaceable package Medium = Water constrainedby PartialMedium(nX = 1);
    Friction fr;
  end WithReplaceable;
  model Redeclared
    extends WithReplaceable(redeclare model Friction = Viscous(d = 0.1));
    redeclare replaceable model Extra = Foo;
    inner Real env;
    outer Real world;
    inner outer Real both;
    final parameter Real k = 1;
  end Redeclared;
  model extends PartialBase "class extends"
    Real y;
  equation
    y = x;
  end PartialBase;
end Kinds;

final model TopFinal
  Real x = 1;
end TopFinal;
