use elicit::Elicit;

#[derive(Elicit)]
struct Point(i32, i32);

fn main() {}
