package Single "a single-file library"
  function twice
    input Real x;
    output Real y;
  algorithm
    y := 2*x;
  end twice;
end Single;
