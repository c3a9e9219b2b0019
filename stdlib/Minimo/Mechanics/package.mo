within Minimo;
package Mechanics "1-D mechanical components"
end Mechanics;
