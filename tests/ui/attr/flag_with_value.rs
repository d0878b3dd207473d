use elicit::Elicit;

#[derive(Elicit)]
#[elicit(deny_unknown_fields = true)]
struct Form {
    #[elicit(skip = "yes")]
    cache: Vec<u8>,
}

fn main() {}
