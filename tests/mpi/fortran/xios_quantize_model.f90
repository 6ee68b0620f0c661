! Quantization set through the XIOS-style attribute routines (run by
! tests/python/test_quantization.py): xios_set_field_attr gives the field
! tas_q BitRound with 6 bits, xios_set_file_attr gives the file "coarse"
! BitRound with 3 bits for its fields; xios_get_*_attr and
! xios_is_defined_*_attr read them back. The test compares the files with
! numpy's rounding of the plain file. mpiexec -n 2 ./xios_quantize_model
program xios_quantize_model
  use mpi
  use xios
  implicit none
  integer, parameter :: ni = 8, nj_glo = 4, nsteps = 2
  integer :: ierr, comm, rank, nprocs, jbegin, nj, i, j, step, nsb
  real(8), allocatable :: lon(:), lat(:), tas(:,:)
  character(len=32) :: algorithm
  logical :: defined(2)

  call xios_initialize("quantize", return_comm=comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  jbegin = rank * nj_glo / nprocs
  nj = (rank + 1) * nj_glo / nprocs - jbegin
  allocate(lon(ni), lat(nj), tas(ni, nj))
  lon = [(i * 45.0d0, i = 0, ni - 1)]
  lat = [(-67.5d0 + (jbegin + j) * 45.0d0, j = 0, nj - 1)]
  call xios_context_initialize("atm", comm)
  call xios_set_domain_attr("globe", ni_glo=ni, nj_glo=nj_glo, ibegin=0, ni=ni, jbegin=jbegin, nj=nj, &
                            lonvalue_1d=lon, latvalue_1d=lat)
  call xios_set_field_attr("tas_q", quantization="bitround", quantization_nsb=6)
  call xios_set_file_attr("coarse", quantization="bitround", quantization_nsb=3)
  call xios_get_field_attr("tas_q", quantization=algorithm, quantization_nsb=nsb)
  if (algorithm /= "bitround" .or. nsb /= 6) error stop "xios_quantize_model: get_field_attr tas_q"
  call xios_get_file_attr("coarse", quantization_nsb=nsb)
  if (nsb /= 3) error stop "xios_quantize_model: get_file_attr coarse"
  call xios_is_defined_field_attr("tas", quantization=defined(1))
  call xios_is_defined_file_attr("coarse", quantization_nsd=defined(2))
  if (any(defined)) error stop "xios_quantize_model: is_defined of attributes never set"
  call xios_close_context_definition()
  do step = 1, nsteps
    call xios_update_calendar(step)
    tas = reshape([((273.0d0 + sin(0.7d0 * i + 1.3d0 * (jbegin + j) + step), i = 0, ni - 1), j = 0, nj - 1)], &
                  [ni, nj])
    call xios_send_field("tas", tas)
  end do
  call xios_context_finalize()
  call MPI_Comm_free(comm, ierr)
  call xios_finalize()
  if (rank == 0) print "(a)", "xios_quantize_model: OK"
end program xios_quantize_model
