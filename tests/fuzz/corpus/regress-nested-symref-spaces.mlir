#a = @x::@y::@z
#b = @x :: @y
