// docs/embedding.md, C++17: the snippet, on the RAII wrapper that cpp_raii.cpp uses,
// must receive its 1000 points in order.
#include <thread>
#include <utility>

#include "zchan_raii.hpp"

struct point {
    unsigned x, y;
};

static unsigned used;
static void use(const point &p) { used += p.y == used ? 1 : 0; }

int main() {
    {
@SNIPPET@
    }
    return used == 1000 ? 0 : 1;
}
