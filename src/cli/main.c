#include <stdio.h>

int main(void)
{
    fprintf(stderr, "jaxset: not built yet\n");
    return 2;
}
