within Minimo;
package Electrical "Electrical components"
end Electrical;
