// Package lolwut draws LOLWUT's computer art as Redis 7.0 does: Georg
// Nees's "Schotter" in braille characters (LOLWUT VERSION 5) and an 8-bit
// city skyline in terminal colors (VERSION 6), on a canvas of pixels.
package lolwut

import (
	"math"
	"strings"
)

// Rand is the source of randomness: Redis's rand(), a non-negative int
// below RandMax+1. Tests pass a fixed one.
type Rand func() int

// RandMax is the largest value a Rand returns (glibc's RAND_MAX).
const RandMax = 1<<31 - 1

// canvas is a grid of pixels, each a color number.
type canvas struct {
	width, height int
	pixels        []byte
}

func newCanvas(width, height int, bg byte) *canvas {
	c := &canvas{width: width, height: height, pixels: make([]byte, width*height)}
	for i := range c.pixels {
		c.pixels[i] = bg
	}
	return c
}

func (c *canvas) set(x, y int, color byte) {
	if x >= 0 && x < c.width && y >= 0 && y < c.height {
		c.pixels[x+y*c.width] = color
	}
}

func (c *canvas) get(x, y int) byte {
	if x < 0 || x >= c.width || y < 0 || y >= c.height {
		return 0
	}
	return c.pixels[x+y*c.width]
}

// line draws a line from x1,y1 to x2,y2 (Bresenham).
func (c *canvas) line(x1, y1, x2, y2 int, color byte) {
	dx, dy := abs(x2-x1), abs(y2-y1)
	sx, sy := 1, 1
	if x1 >= x2 {
		sx = -1
	}
	if y1 >= y2 {
		sy = -1
	}
	err := dx - dy
	for {
		c.set(x1, y1, color)
		if x1 == x2 && y1 == y2 {
			return
		}
		e2 := err * 2
		if e2 > -dy {
			err -= dy
			x1 += sx
		}
		if e2 < dx {
			err += dx
			y1 += sy
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// square draws a square of side size centered at x,y and rotated by
// angle: its corners are on the circle through them, at 45 degrees plus
// the angle and every 90 degrees from there. The angle and size are
// single precision and the corners double, as Redis computes them.
func (c *canvas) square(x, y int, size, angle float32) {
	size = float32(math.Round(float64(float32(float64(size) / 1.4142135623))))
	var px, py [4]int
	k := float32(math.Pi/4 + float64(angle))
	for j := range px {
		px[j] = int(math.Round(math.Sin(float64(k))*float64(size) + float64(x)))
		py[j] = int(math.Round(math.Cos(float64(k))*float64(size) + float64(y)))
		k = float32(float64(k) + math.Pi/2)
	}
	for j := range px {
		c.line(px[j], py[j], px[(j+1)%4], py[(j+1)%4], 1)
	}
}

// Schotter renders LOLWUT 5's art for a terminal cols wide, with the
// given squares per row and per column (each clamped as Redis clamps
// them), followed by its caption naming version.
func Schotter(cols, perRow, perCol int, version string, rnd Rand) string {
	cols, perRow, perCol = clamp(cols, 1000), clamp(perRow, 200), clamp(perCol, 200)
	width := cols * 2
	padding := 0
	if width > 4 {
		padding = 2
	}
	side := float32(width-padding*2) / float32(perRow)
	c := newCanvas(width, int(side*float32(perCol))+padding*2, 0)
	for y := 0; y < perCol; y++ {
		for x := 0; x < perRow; x++ {
			sx := int(float32(x)*side + side/2 + float32(padding))
			sy := int(float32(y)*side + side/2 + float32(padding))
			var angle float32
			if y > 1 {
				// Rotated and moved more, the lower the row.
				r := func() float32 { return float32(rnd()) / float32(RandMax) / float32(perCol) * float32(y) }
				r1, r2, r3 := r(), r(), r()
				if rnd()%2 != 0 {
					r1 = -r1
				}
				if rnd()%2 != 0 {
					r2 = -r2
				}
				if rnd()%2 != 0 {
					r3 = -r3
				}
				angle = r1
				sx = int(float32(sx) + r2*side/3)
				sy = int(float32(sy) + r3*side/3)
			}
			c.square(sx, sy, side, angle)
		}
	}
	var b strings.Builder
	for y := 0; y < c.height; y += 4 {
		for x := 0; x < c.width; x += 2 {
			// A braille character holds 2x4 pixels, bits numbered
			// 0 3 / 1 4 / 2 5 / 6 7.
			var bits rune
			for i, p := range [8][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}, {1, 3}} {
				if c.get(x+p[0], y+p[1]) != 0 {
					bits |= 1 << i
				}
			}
			b.WriteRune(0x2800 + bits)
		}
		if y != c.height-1 {
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. ")
	b.WriteString(version)
	b.WriteByte('\n')
	return b.String()
}

// Skyline renders LOLWUT 6's art, cols by rows terminal cells (clamped as
// Redis clamps them), followed by its caption naming version.
func Skyline(cols, rows int, version string, rnd Rand) string {
	c := newCanvas(clamp(cols, 1000), clamp(rows, 1000), 3)
	// Background buildings without windows, the lighter ones behind.
	for color := byte(2); color >= 1; color-- {
		for off := -10; off < c.width; {
			off += rnd() % 8
			b := building{xoff: off, width: 10 + rnd()%9, color: color}
			if color == 2 {
				b.height = c.height/2 + rnd()%c.height/2
			} else {
				b.height = c.height/2 + rnd()%c.height/3
			}
			c.building(b, rnd)
			if color == 2 {
				off += b.width / 2
			} else {
				off += b.width + 1
			}
		}
	}
	// Foreground buildings with windows.
	for off := -10; off < c.width; {
		off += rnd() % 8
		b := building{xoff: off, width: 5 + rnd()%14, windows: true}
		if b.width%4 != 0 {
			b.width += b.width % 3
		}
		b.height = c.height/3 + rnd()%c.height/2
		c.building(b, rnd)
		off += b.width + 5
	}
	var s strings.Builder
	for y := 0; y < c.height; y++ {
		for x := 0; x < c.width; x++ {
			// Foreground and background both, for the same look in
			// every terminal.
			s.WriteString("\033[")
			s.WriteString([...]string{"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"}[c.get(x, y)&3])
			s.WriteString(" \033[0m")
		}
		if y != c.height-1 {
			s.WriteByte('\n')
		}
	}
	s.WriteString("\nDedicated to the 8 bit game developers of past and present.\n" +
		"Original 8 bit image from Plaguemon by hikikomori. Redis ver. ")
	s.WriteString(version)
	s.WriteByte('\n')
	return s.String()
}

// building is one skyscraper of the skyline.
type building struct {
	xoff, width, height int
	windows             bool
	color               byte
}

// building draws b standing on the canvas's bottom row: its roof two
// pixels narrower on each side, and, with windows, two-pixel-wide windows
// of a random gray on every other row inside.
func (c *canvas) building(b building, rnd Rand) {
	bottom := c.height - 1
	top := bottom - b.height + 1
	for y := bottom; y >= top; y-- {
		for x := b.xoff; x < b.xoff+b.width; x++ {
			if y == top && (x <= b.xoff+1 || x >= b.xoff+b.width-2) {
				continue
			}
			color := b.color
			if b.windows && x > b.xoff+1 && x < b.xoff+b.width-2 && y > top+1 && y < bottom-1 {
				relx, rely := x-(b.xoff+1), y-(top+1)
				if relx/2%2 != 0 && rely%2 != 0 {
					for color = byte(1 + rnd()%2); color == b.color; color = byte(1 + rnd()%2) {
					}
					if relx%2 != 0 {
						color = c.get(x-1, y)
					}
				}
			}
			c.set(x, y, color)
		}
	}
}

func clamp(n, most int) int { return min(max(n, 1), most) }
