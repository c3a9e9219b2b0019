/* A block comment
   spanning lines, with "quotes" and // slashes */
model 'Comments and strings' // trailing comment
  Real 'x 1' "a quoted identifier with a space";
  Real 'a\'b' = 1 "escaped quote in a quoted identifier";
  parameter String s1 = "tab\there, newline\n, quote \", backslash \\, question \?";
  parameter String s2 = "unicode: é ω ∑";
  parameter String s3 = "raw
newline";
  Real y /* inline comment */ = 2 * 'x 1';
equation
  // an equation follows
  'x 1' = /* here */ time;
end 'Comments and strings';
