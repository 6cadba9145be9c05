/* The program of a layer's link check (CMakeLists.txt, "A call upward fails to link"): it does
 * nothing; linking it with every object of one layer is the check. */
int main(void)
{
    return 0;
}
