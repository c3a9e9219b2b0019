within;
package TinyLib "A tiny test library: package folder with package.order and a sub-package folder"
  constant Real g = 9.81 "gravity";
end TinyLib;
