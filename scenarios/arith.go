package scenarios

import (
	"errors"
	"fmt"
	"math"
)

// ErrOverflow is the error of an outcome's arithmetic whose result does not
// fit in 64 bits: outcomes compute with int64 and never wrap around.
var ErrOverflow = errors.New("integer overflow")

// Arith computes x op y for the arithmetic operators of outcomes (+ - * /),
// reporting a result beyond int64 and a division by zero as errors instead
// of wrapping around or crashing.
func Arith(op string, x, y int64) (int64, error) {
	switch op {
	case "+":
		if y > 0 && x > math.MaxInt64-y || y < 0 && x < math.MinInt64-y {
			return 0, overflow(x, op, y)
		}
		return x + y, nil
	case "-":
		if y < 0 && x > math.MaxInt64+y || y > 0 && x < math.MinInt64+y {
			return 0, overflow(x, op, y)
		}
		return x - y, nil
	case "*":
		if x == 0 || y == 0 {
			return 0, nil
		}
		p := x * y
		if p/y != x || x == -1 && y == math.MinInt64 || y == -1 && x == math.MinInt64 {
			return 0, overflow(x, op, y)
		}
		return p, nil
	case "/":
		if y == 0 {
			return 0, errors.New("division by zero")
		}
		if x == math.MinInt64 && y == -1 {
			return 0, overflow(x, op, y)
		}
		return x / y, nil
	}
	return 0, fmt.Errorf("unknown operator %s", op)
}

// Negate is -x without wrapping around.
func Negate(x int64) (int64, error) {
	if x == math.MinInt64 {
		return 0, fmt.Errorf("%w: -(%d) does not fit in 64 bits", ErrOverflow, x)
	}
	return -x, nil
}

func overflow(x int64, op string, y int64) error {
	return fmt.Errorf("%w: %d %s %d does not fit in 64 bits", ErrOverflow, x, op, y)
}
