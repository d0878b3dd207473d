use elicit::Elicit;

#[derive(Elicit)]
struct Wrapper<T> {
    value: T,
}

fn main() {}
