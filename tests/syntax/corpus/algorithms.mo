package Algorithms
  function solve "Newton iteration"
    input Real x0;
    input Real tol = 1e-10;
    output Real x;
    output Integer iter;
  protected
    Real dx;
  algorithm
    x := x0;
    iter := 0;
    while abs(f(x)) > tol loop
      dx := -f(x) / df(x);
      x := x + dx;
      iter := iter + 1;
      if iter > 100 then
        assert(false, "no convergence");
        break;
      elseif iter > 50 then
        x := x * 0.5;
      else
        x := x;
      end if;
    end while;
    for i in 1:3 loop
      x := x + i;
    end for;
    (x, , iter) := triple(x);
    return;
  annotation(Inline = true, derivative = dsolve);
  end solve;

  function ext "external C function"
    input Real u;
    output Real y;
  external "C" y = ext_impl(u) annotation(Library = "extlib", Include = "#include \"ext.h\"");
  end ext;

  function ext2
    input Real u[:];
    output Real y;
  external "C";
  end ext2;

  model Counter
    discrete Integer count(start = 0);
    Real v;
  initial algorithm
    count := 0;
  algorithm
    when sample(0, 1) then
      count := pre(count) + 1;
    elsewhen initial() then
      count := 0;
    end when;
    v := if count > 3 then 1.0 else 0.0;
    reinit(v, 0);
  end Counter;
end Algorithms;
